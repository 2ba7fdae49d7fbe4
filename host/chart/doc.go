// Package chart draws replayed and simulated sessions as SVG or PNG plots
// with gonum.org/v1/plot: a panel per session, context per request, one
// colour per setting and one line style per kind of figure, the policy's
// thresholds and its decisions marked.
//
// Only cmd/resetpolicy-plot links it: gonum's plot package parses its
// fonts in its package init, at every start of a binary that links it, and
// the resetpolicy binary is the one Pi starts at every session
// (TestBinaryLinksNoPlot). What a plot draws travels between the two as a
// replay.PlotRequest.
package chart
