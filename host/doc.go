// Package host is the index of the adapters that sit above the engine.
// It holds no code: each folder below is one package or one host's
// adapter, and this table says whose each one is, so that a third host is
// a new folder and a reader knows what it may reuse. A test
// (TestLayoutNamesEveryPackage) keeps the table to the folders.
//
// A package that serves every host knows no host's session format or
// hooks; a package of one host is that host's alone, and a new host
// writes its own instead of bending it.
//
//	folder       serves        what it owns
//	settings     every host    which policy and params are in force: user, project (.resetpolicy.* or .pi/resetpolicy.*), env, flags
//	rpc          every host    `serve --stdio`: initialize for a named host, decide, snapshot; its entry mechanics (mechanics.go) are Pi's session format, which only the Pi extension calls
//	lsp          every host    the language server for policy, test and scenario files
//	report       every host    the policy report page (its replay section reads Pi sessions through replay)
//	render       every host    SVG and PNG drawing of the state diagrams
//	chart        every host    charts of replayed and simulated sessions
//	fileio       every host    opening the files a command names, bounded
//	nodesuite    every host    running a host's node:test suite from go test, in shards side by side
//	pi           pi            the Pi extension (TypeScript) and its end-to-end tests in Pi's real loop
//	session      pi            the Pi 1.6 session model and the reset-boundary mechanics
//	sessionfile  pi            reading recorded Pi session files as Pi reads them
//	jsonscan     pi            the scanner of Pi session-file lines
//	estimate     pi            Pi 1.6's token estimate
//	replay       pi            deciding recorded Pi sessions under a policy
//	sim          pi            the simulated Pi-like host behind scenarios and `simulate`
//	scenario     pi            the scenario format that scripts the simulated Pi-like host
//	opencode     opencode      the opencode plugin (TypeScript) and its end-to-end tests in real opencode
package host
