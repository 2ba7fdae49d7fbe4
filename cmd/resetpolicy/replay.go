package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/chart"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

func init() { extraCommands = append(extraCommands, newReplayCmd) }

type replayFlags struct {
	sets           []string
	compare        string
	plot           string
	asJSON         bool
	branch         string
	contextWindow  int64
	reserve        int64
	keepRecent     int64
	autoCompaction bool
	jobs           int
	progress       string
	piSettings     []string
	obeysWithin    int
	series         bool
	// points keeps each request's context for a chart, and maxDecisions
	// bounds the decisions kept per session (0: replay's default); set by
	// report, which charts sessions, not by flags.
	points       bool
	maxDecisions int
}

func newReplayCmd(v *viper.Viper) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay FILE|DIR... [--policy NAME|FILE] [--set PARAM=VALUE...] [--compare P=V1,V2] [--plot FILE.svg|png] [--json]",
		Short: "Decide recorded Pi sessions under a policy: what it would have done",
		Long: `replay reads Pi session files (every format version Pi migrates; a
directory is walked for *.jsonl and archived *.jsonl.reset.* files), turns
each session's active branch into host events and decides them under the
policy. It reports per session and in total: turns, peak context, the first
reminder, warning and hard-reserve turns, the runway left at each warning,
the resets and checkpoints the policy would commit against the compactions
that really happened, and events the policy rejected.

Figures are measured until the first decision that changes the window (a
reset, a checkpoint, a compaction the policy starts or cancels); after it the
record no longer describes the window, and figures are projected: the fresh
window's size plus what each later turn added in the record. Every token
figure says how it was found: m measured (a provider's usage, or the prompt
size an overflow error states), e estimated (Pi 1.6's own estimate: the
latest usage plus about a token per four characters of what follows), p
projected; --json carries the same as "kind" fields.

A record made without the policy's warning cannot show the agent obeying it:
--assume-obeys-within N assumes the agent calls the policy's tool N turns
after a window's first warning.

--compare P=V1,V2 replays every session once per value, side by side; P is a
param, "policy", or a host setting (context_window, reserve, keep_recent,
auto_compaction). --plot draws context per turn with the policy's thresholds
and its decisions, one panel per session (the first 12), compared settings
overlaid: the first setting's line wide and pale under the others, its marks
filled and the others' outlined. A decision is marked by the kind its policy
declares (reminder, warning, checkpoint, reset, hard reserve); routine
decisions are not marked. The charts are the report's.`,
		Example: `  resetpolicy replay ~/.pi/agent/sessions
  resetpolicy replay session.jsonl --compare warning_runway=8192,20000
  resetpolicy replay session.jsonl --compare policy=wipe_memory,new_context --plot budget.svg
  resetpolicy replay sessions/ --json > replay.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage("replay needs a session file (.jsonl) or a folder of them, such as ~/.pi/agent/sessions\nRun '%s --help' for usage.", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, args, namedPolicy(cmd), f)
		},
	}
	cmd.Flags().String("policy", "", "built-in policy name or policy file (default: the policy in force here, as Pi runs it; see 'resetpolicy config')")
	cmd.Flags().StringVar(&f.plot, "plot", "", "draw context per turn with thresholds and decisions to FILE.svg or FILE.png")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "one JSON object per session (and setting) per line")
	addReplayFlags(cmd, &f)
	return cmd
}

// addReplayFlags registers the flags that say how sessions are replayed:
// shared by replay and report, so both read sessions alike.
func addReplayFlags(cmd *cobra.Command, f *replayFlags) {
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a param, as PARAM=VALUE (repeatable)")
	cmd.Flags().StringVar(&f.compare, "compare", "", "replay once per value, side by side: PARAM=V1,V2,… (or policy=A,B, or a host setting)")
	cmd.Flags().StringVar(&f.branch, "branch", "", "replay the branch ending at this entry id instead of the active one")
	cmd.Flags().Int64Var(&f.contextWindow, "context-window", 0, "the model's context window (default: from the model, else 200000)")
	cmd.Flags().Int64Var(&f.reserve, "reserve", 16384, "Pi's compaction.reserveTokens")
	cmd.Flags().Int64Var(&f.keepRecent, "keep-recent", 20000, "Pi's compaction.keepRecentTokens")
	cmd.Flags().BoolVar(&f.autoCompaction, "auto-compaction", true, "Pi's compaction.enabled")
	cmd.Flags().StringArrayVar(&f.piSettings, "pi-settings", nil, "a Pi settings.json whose compaction settings apply (repeatable: the agent directory's, then the project's); --reserve, --keep-recent and --auto-compaction given explicitly win")
	cmd.Flags().IntVar(&f.obeysWithin, "assume-obeys-within", 0, "assume the agent closes out (calls the policy's tool) this many turns after a window's first warning (0: only what the record shows)")
	cmd.Flags().BoolVar(&f.series, "series", false, "with --json, each report carries its per-request series (turn, tokens, kind, measured, recorded)")
	cmd.Flags().IntVar(&f.jobs, "jobs", 0, "sessions replayed at once (default: the number of CPUs)")
	cmd.Flags().StringVar(&f.progress, "progress", "auto", "progress bar on stderr: auto (on a terminal), always, never")
}

// setting is one column of a comparison.
type setting struct {
	label    string
	policy   string
	set      map[string]string
	settings replay.Settings
	// compared is the compared param's value, above --set.
	compared map[string]string
}

func replaySettings(cmd *cobra.Command, f replayFlags, policy string) ([]setting, error) {
	if f.reserve < 0 || f.keepRecent < 0 || f.contextWindow < 0 {
		return nil, usage("--reserve, --keep-recent and --context-window take whole numbers of tokens, 0 or more")
	}
	set, err := parseSet(f.sets)
	if err != nil {
		return nil, err
	}
	st := replay.DefaultSettings()
	for _, path := range f.piSettings {
		data, err := readBounded(path, replay.MaxPiSettings)
		if err == nil {
			st, err = replay.ApplyPiSettings(st, data)
		}
		if err != nil {
			return nil, usage("--pi-settings %s: %v", path, err)
		}
	}
	st.ContextWindow = f.contextWindow
	if cmd.Flags().Changed("reserve") || len(f.piSettings) == 0 {
		st.Reserve = f.reserve
	}
	if cmd.Flags().Changed("keep-recent") || len(f.piSettings) == 0 {
		st.KeepRecent = f.keepRecent
	}
	if cmd.Flags().Changed("auto-compaction") || len(f.piSettings) == 0 {
		st.AutoCompaction = f.autoCompaction
	}
	base := setting{label: policy, policy: policy, set: set, settings: st}
	if f.compare == "" {
		return []setting{base}, nil
	}
	key, vals, ok := strings.Cut(f.compare, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.TrimSpace(vals) == "" {
		return nil, usage("--compare %q: want PARAM=V1,V2,…", f.compare)
	}
	var out []setting
	for _, val := range strings.Split(vals, ",") {
		val = strings.TrimSpace(val)
		s := base
		s.set = map[string]string{}
		for k, v := range base.set {
			s.set[k] = v
		}
		s.label = key + "=" + val
		var n int64
		var perr error
		switch key {
		case "policy":
			s.policy = val
		case "context_window":
			n, perr = strconv.ParseInt(val, 10, 64)
			s.settings.ContextWindow = n
		case "reserve":
			n, perr = strconv.ParseInt(val, 10, 64)
			s.settings.Reserve = n
		case "keep_recent":
			n, perr = strconv.ParseInt(val, 10, 64)
			s.settings.KeepRecent = n
		case "auto_compaction":
			s.settings.AutoCompaction, perr = strconv.ParseBool(val)
		default:
			s.compared = map[string]string{key: val}
		}
		if perr != nil || n < 0 {
			return nil, usage("--compare %s: %q is not a valid value", key, val)
		}
		out = append(out, s)
	}
	return out, nil
}

func runReplay(cmd *cobra.Command, args []string, policy string, f replayFlags) error {
	if f.plot != "" && !strings.HasSuffix(f.plot, ".svg") && !strings.HasSuffix(f.plot, ".png") {
		return usage("--plot %q: the file name must end in .svg or .png", f.plot)
	}
	if f.obeysWithin < 0 {
		return usage("--assume-obeys-within takes a whole number of turns, 0 or more")
	}
	// The sessions are found before the policy's header is printed, so a
	// wrong path prints its error alone.
	files, err := sessionfile.Walk(args)
	if err != nil {
		return usage("%v", pathError(err))
	}
	if len(files) == 0 {
		return usage("no session files in %s", strings.Join(args, ", "))
	}
	configs, labels, resolved, err := replayConfigs(cmd, f, policy, !f.asJSON)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	bar := progress(cmd.ErrOrStderr(), f.progress, len(files))
	totals := make([]replay.Total, len(configs))
	var plots []replay.PlotSession
	failed := false
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	c := replay.Corpus{
		Configs: configs, Leaf: f.branch, Workers: f.jobs,
		Done: bar.tick,
		Emit: func(res replay.Result) {
			if res.Err != nil {
				failed = true
				fmt.Fprintf(cmd.ErrOrStderr(), "%v\n", res.Err)
				return
			}
			for i, r := range res.Reports {
				totals[i].Add(r)
			}
			if f.plot != "" && len(plots) < replay.MaxPlotSessions {
				plots = append(plots, replay.PlotSession{Reports: res.Reports, Thresholds: replay.ThresholdsOf(configs, res.Reports)})
			}
			if f.asJSON {
				for i, r := range res.Reports {
					_ = enc.Encode(struct {
						*replay.Report
						Policy settings.ResolvedJSON `json:"policy_in_force"`
					}{r, resolved[i]})
				}
				return
			}
			bar.clear()
			_ = replay.WriteText(out, res.Reports)
			fmt.Fprintln(out)
		},
	}
	c.Run(files)
	bar.finish()
	if !f.asJSON {
		_ = replay.WriteTotals(out, labels, totals)
	}
	if f.plot != "" {
		if err := chart.Plot(f.plot, plots); err != nil {
			return failure("--plot: %v", err)
		}
		if !f.asJSON {
			fmt.Fprintf(out, "plot written to %s\n", f.plot)
		}
	}
	if failed {
		return silent
	}
	return nil
}

// replayConfigs resolves the policy of every compared setting, as the
// policy in force or the one named, and makes one replay configuration of
// each; header prints each resolution's header line on stdout.
func replayConfigs(cmd *cobra.Command, f replayFlags, policy string, header bool) ([]replay.Config, []string, []settings.ResolvedJSON, error) {
	points, maxDecisions := f.plot != "" || f.points, f.maxDecisions
	settingsList, err := replaySettings(cmd, f, policy)
	if err != nil {
		return nil, nil, nil, err
	}
	var configs []replay.Config
	var labels []string
	var resolved []settings.ResolvedJSON
	for _, s := range settingsList {
		where := "--policy"
		if s.policy != policy {
			where = "--compare"
		}
		r, err := policyInForceWith(cmd, s.policy, where, s.set, s.compared, "--compare")
		if err != nil {
			return nil, nil, nil, err
		}
		if err := loadFailed(cmd.ErrOrStderr(), r); err != nil {
			return nil, nil, nil, err
		}
		if header {
			printHeader(cmd.OutOrStdout(), r)
		}
		resolved = append(resolved, r.JSON())
		p := r.Policy
		if s.label == "" {
			s.label = p.Name
		}
		configs = append(configs, replay.Config{Label: s.label, Engine: engine.New(p), Settings: s.settings, Points: points, MaxDecisions: maxDecisions, ObeysWithin: f.obeysWithin, Series: f.series})
		labels = append(labels, s.label)
	}
	return configs, labels, resolved, nil
}

// readBounded reads a regular file (or standard input) of at most max
// bytes.
func readBounded(path string, max int64) ([]byte, error) {
	return fileio.ReadInput(path, max)
}

// progress returns a progress bar on a terminal (or always/never as
// asked); a pipe gets none, and the methods of none do nothing.
func progress(w io.Writer, mode string, n int) *replayBar {
	show := false
	switch mode {
	case "always":
		show = true
	case "never":
	default:
		if isTerminal(w) && n > 1 {
			show = true
		}
	}
	if !show {
		return nil
	}
	return &replayBar{progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("replaying"),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(100e6), progressbar.OptionClearOnFinish())}
}

// replayBar counts replayed files; a nil one shows nothing.
type replayBar struct{ bar *progressbar.ProgressBar }

func (r *replayBar) tick() {
	if r != nil {
		_ = r.bar.Add(1)
	}
}

func (r *replayBar) clear() {
	if r != nil {
		_ = r.bar.Clear()
	}
}

func (r *replayBar) finish() {
	if r != nil {
		_ = r.bar.Finish()
	}
}
