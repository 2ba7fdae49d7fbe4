// Package graph is the state graph behind `resetpolicy graph`: the
// diagram of a policy's enum slots, one per slot from the rules as
// written, or the product of several slots restricted to the states the
// model checker (engine/verify) reaches; written as DOT or Mermaid, or
// rendered to SVG or PNG by Graphviz compiled to WebAssembly.
//
// Building a diagram is pure; Render runs Graphviz in process and reads
// no files.
package graph
