# A project file whose override breaks the param's validation.
use "wipe_memory" {
  warning_runway = -5 # ERROR: Invalid param value
}
