// Package sweep explores a policy's params over the range its validation
// allows, not only at the values in force: for each param, the values
// where a guard, a derived value or a validation changes its answer (the
// constants and the other params it is compared with, each side of the
// comparison), one param at a time with the others as they are. Each
// configuration the policy's own validation accepts is loaded again
// through the caller's loader and explored by verify.Check; one it
// rejects is reported as outside validation, not explored. Configurations
// that are the same after loading are explored once.
//
// It is pure, as verify is: the loader is the caller's (it may read
// files, the package reads none).
package sweep
