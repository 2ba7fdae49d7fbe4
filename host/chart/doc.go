// Package chart draws replayed and simulated sessions: per session, the
// context of each request over turns, one colour per compared setting and
// one line style per kind of figure (measured, estimated, projected), the
// setting's thresholds, and a mark per decision whose kind the policy
// declares (reminder, warning, checkpoint, reset, hard reserve; routine
// decisions stay unmarked).
//
// It is the one way sessions are drawn: the report's page embeds Panel's
// SVG, and `replay --plot` and `simulate --plot` write Draw's SVG or PNG.
// Both come from one drawing (chart.go) onto a canvas (canvas.go) that
// writes SVG text or rasterises with host/render's face and
// github.com/fogleman/gg, so a PNG shows what the SVG shows. Nothing
// happens at start-up: the font is parsed at the first PNG text.
//
// Where compared settings coincide, both stay visible: the first
// setting's line is drawn wide and pale under the later ones', and each
// setting's marks are offset sideways, the first filled and the others
// outlined.
//
// It reads no files; Draw writes the one file it is given.
package chart
