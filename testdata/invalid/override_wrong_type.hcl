# A project file that overrides a number param with a string.
use "wipe_memory" {
  warning_runway = "a lot" # ERROR: Wrong param type
}
