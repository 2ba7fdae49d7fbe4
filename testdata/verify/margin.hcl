# A policy proved at its defaults that breaks its property at the
# boundary of cap's validation: verify --params range finds it.
policy "margin" {}
param "limit" {
  type    = number
  default = 10
  validation {
    condition     = "value >= 2"
    error_message = "limit must be 2 or more."
  }
}
param "cap" {
  type    = number
  default = 50
  validation {
    condition     = "value > 0 && value < 100"
    error_message = "cap must be above 0 and below 100."
  }
}
param "early" {
  type    = number
  default = 5
  validation {
    condition     = "value < param.limit"
    error_message = "early must be below limit."
  }
}
group "g" {
  rule "cancel_over_the_limit" {
    on   = "before_compact"
    when = "event.tokens >= min(param.limit, param.cap)"
    effect "cancel_compaction" {}
  }
  rule "cancel_early" {
    on   = "before_compact"
    when = "param.early > 3 && event.tokens >= param.early"
    effect "cancel_compaction" {}
  }
}
property "nothing is cancelled under 3 tokens" {
  never = "cancel_compaction"
  on    = "before_compact"
  when  = "event.tokens < 3"
}
