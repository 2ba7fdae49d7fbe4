# A project file that takes a built-in and overrides a param it does not have.
use "wipe_memory" {
  warning_runwya = 8192 # ERROR: Unknown param
}
