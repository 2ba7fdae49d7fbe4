// Package render draws the DOT source of engine/graph as SVG or PNG, in
// process, with Graphviz compiled to WebAssembly (github.com/goccy/go-graphviz):
// nothing to install. It sits above the engine because that library sets
// up its WebAssembly runtime when the program starts and keeps a
// compilation cache under the temporary directory: the engine's packages
// stay free of files and environment.
package render
