package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// maxLine bounds one input line (1 MiB), as the stdio server does.
const maxLine = 1 << 20

// MaxStateFile bounds the file --state reads (16 MiB): a snapshot is a few
// hundred bytes, and a decision log of thousands of decisions fits; a
// larger log is given as its last line.
const MaxStateFile = 16 << 20

func newEvalCmd(v *viper.Viper) *cobra.Command {
	var (
		sets      []string
		stateFile string
		explain   bool
		quiet     bool
	)
	cmd := &cobra.Command{
		Use:   "eval [--policy NAME|FILE] [--set PARAM=VALUE...] [--state FILE] [--explain]",
		Short: "Decide a stream of events read as JSON lines on stdin",
		Long: `eval reads host events on stdin, one JSON object per line, as
{"event": "turn_end", "outcome": "completed", "tokens": 180000}
(facts left out take the host contract's defaults), and writes one JSON line
per event:
{"event": NAME, "rules": [RULE...], "effects": [{"effect": NAME, ...}], "state": {...}}
"rules" are the rules that fired, in order; "effects" what the host must do.

--policy is a built-in name or a policy file; without it eval runs the
policy Pi runs in this directory (see 'resetpolicy config'): .resetpolicy.hcl
or .pi/resetpolicy.hcl, the project config, the user config, RESETPOLICY_POLICY and
RESETPOLICY_PARAM_*, else wipe_memory. Which policy and params it used is
printed on stderr as a "# policy …" line (-q leaves it out). --state starts from a snapshot: a
JSON object of slots, or a line of earlier eval output. --explain adds
"explain": every rule considered and why it did or did not fire.

A malformed line is reported on stderr with its line number; nothing after it
is decided and the exit status is 1. Blank lines are skipped.`,
		Example: `  echo '{"event":"tool","name":"wipe_memory"}' | resetpolicy eval
  resetpolicy eval --policy autocompacter --set force_limit=150000 --set warning_limit=140000 --set notice_limit=100000 < events.jsonl
  resetpolicy eval --explain --state snapshot.json < events.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := parseSet(sets)
			if err != nil {
				return err
			}
			r, err := policyInForce(cmd, namedPolicy(cmd), "--policy", set)
			if err != nil {
				return err
			}
			if err := loadFailed(cmd.ErrOrStderr(), r); err != nil {
				return err
			}
			s := engine.New(r.Policy).NewSession()
			if stateFile != "" {
				b, err := fileio.ReadInput(stateFile, MaxStateFile)
				if errors.Is(err, fs.ErrNotExist) {
					return usage("--state %s: no such file or directory", stateFile)
				}
				if err != nil {
					return failure("--state: %v", err)
				}
				if err := s.Restore(lastJSONValue(b)); err != nil {
					return failure("--state %s: %v", stateFile, err)
				}
			}
			// stdout is the decision contract: the header goes to stderr.
			if !quiet {
				printHeader(cmd.ErrOrStderr(), r)
			}
			return evalStream(cmd.InOrStdin(), cmd.OutOrStdout(), s, explain)
		},
	}
	cmd.Flags().String("policy", "", "built-in policy name or policy file (default: the policy in force here, see 'resetpolicy config')")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not print the policy header on stderr")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	cmd.Flags().StringVar(&stateFile, "state", "", "start from this state snapshot (JSON)")
	cmd.Flags().BoolVar(&explain, "explain", false, "add every rule considered and why it did not fire")
	return cmd
}

// evalStream decides every event line of in and writes one line per
// decision to out: the whole of eval after the policy is loaded.
func evalStream(in io.Reader, out io.Writer, s *engine.Session, explain bool) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	w := bufio.NewWriterSize(out, 64*1024)
	defer w.Flush()
	var (
		buf   []byte
		dec   engine.Decoder
		state engine.LineCache
	)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(trimSpace(line)) == 0 {
			continue
		}
		ev, err := dec.Decode(line)
		if err != nil {
			w.Flush()
			return failure("stdin:%d: %v", n, err)
		}
		var d *engine.Decision
		if explain {
			d, err = s.DecideExplain(ev)
		} else {
			d, err = s.Decide(ev)
		}
		if err != nil {
			w.Flush()
			return failure("stdin:%d: %v", n, err)
		}
		buf = appendDecision(buf[:0], d, s, &state)
		w.Write(buf)
	}
	if err := sc.Err(); err != nil {
		w.Flush()
		return failure("stdin: %v (a line may be at most %d bytes)", err, maxLine)
	}
	return nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// appendDecision writes the eval contract's line for one decision; state,
// when set, keeps the session's state JSON between lines.
func appendDecision(b []byte, d *engine.Decision, s *engine.Session, state *engine.LineCache) []byte {
	b = append(b, `{"event":`...)
	b = engine.AppendJSONString(b, d.Event)
	b = append(b, ',')
	b = d.AppendJSONCached(b, s, state)
	return append(b, "}\n"...)
}

// lastJSONValue returns the last of the JSON values in b: a file of eval
// output or a decision log starts from its last line. b is returned whole
// when it does not read as JSON values, for Restore to report.
func lastJSONValue(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	var last json.RawMessage
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return b
		}
		last = v
	}
	if last == nil {
		return b
	}
	return last
}
