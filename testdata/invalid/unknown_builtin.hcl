use "wipe-memory" { # ERROR: Unknown built-in policy
}
