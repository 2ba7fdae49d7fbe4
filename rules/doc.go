// Package rules owns the policy language: the HCL schema of a policy file
// (native syntax or JSON), its decoding into declarations that keep their
// source ranges, typed params (go-cty) with validation and overrides, and
// load-time validation of everything against the host contract. Every
// expression is compiled here, once, by package lang; the result is an
// immutable *Policy that package engine runs.
//
// rules reads only the sources it is given and never evaluates a decision.
// Every problem is an hcl.Diagnostic with a file, line and column; nothing
// here panics on user input. It also owns the bounds every HCL file of the
// tool is read within (ReadHCLFile, CheckHCL: size and nesting, before a
// parser sees the bytes), which the test-file and scenario parsers share.
package rules
