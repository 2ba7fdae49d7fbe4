# A team's project policy: the built-in wipe_memory, warned earlier and cut
# with a margin above Pi's reserve.
use "wipe_memory" {
  warning_runway = 20000
  reserve_margin = 4096
}
