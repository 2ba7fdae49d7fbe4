package replay

import (
	"maps"
	"runtime"
	"sync"

	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// Result is the replay of one file under every Config, in Config order.
type Result struct {
	File    string
	Reports []*Report
	Err     error // the file could not be read as a session
}

// Corpus replays files under configs. Files are read once and replayed
// under each config; Workers goroutines (default GOMAXPROCS) each hold one
// file at a time, and results are handed to Emit in file order from a
// window of at most 2×Workers files, so memory grows with the largest
// session, not with the corpus.
type Corpus struct {
	Configs []Config
	Read    sessionfile.Options
	Leaf    string // --branch: the leaf to replay in every file ("" active)
	Workers int
	// Emit receives each file's result, in order, on one goroutine.
	Emit func(Result)
	// Done is called after each file, from the worker, for progress.
	Done func()
}

// Run replays every file. One worker replays the files in the calling
// goroutine: handing each file to a worker goroutine and its result back
// woke a parked thread on every handoff, whose futex calls and spinning
// were a twentieth of a one-worker replay's CPU time (perf, in
// BenchmarkReplayRealistic).
func (c *Corpus) Run(files []string) {
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 {
		w := c.worker()
		for _, f := range files {
			res := w.file(f)
			if c.Done != nil {
				c.Done()
			}
			if c.Emit != nil {
				c.Emit(res)
			}
		}
		return
	}
	window := 2 * workers
	type job struct {
		i    int
		file string
	}
	jobs := make(chan job)
	results := make(chan struct {
		i int
		r Result
	}, window)
	slots := make(chan struct{}, window)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := c.worker()
			for j := range jobs {
				res := w.file(j.file)
				if c.Done != nil {
					c.Done()
				}
				results <- struct {
					i int
					r Result
				}{j.i, res}
			}
		}()
	}
	go func() {
		for i, f := range files {
			slots <- struct{}{}
			jobs <- job{i, f}
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()
	pending := map[int]Result{}
	next := 0
	for r := range results {
		pending[r.i] = r.r
		for {
			res, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-slots
			if c.Emit != nil {
				c.Emit(res)
			}
		}
	}
}

// worker is what one worker holds across files: a replayer per config
// and one reader, whose buffers the files share.
type worker struct {
	c   *Corpus
	rps []*Replayer
	rd  *sessionfile.Reader
}

func (c *Corpus) worker() *worker {
	// The caller's KeepArgs is copied, not added to: workers share it.
	opts := c.Read
	opts.KeepArgs = maps.Clone(opts.KeepArgs)
	rps := make([]*Replayer, len(c.Configs))
	for i, cfg := range c.Configs {
		rps[i] = New(cfg)
		if opts.KeepArgs == nil {
			opts.KeepArgs = map[string]bool{}
		}
		for t := range rps[i].tools {
			opts.KeepArgs[t] = true
		}
	}
	return &worker{c: c, rps: rps, rd: sessionfile.NewReader(opts)}
}

// file reads one file and replays it under every config.
func (w *worker) file(name string) Result {
	res := Result{File: name}
	f, err := w.rd.ReadFile(name)
	if err != nil {
		res.Err = err
		return res
	}
	for _, rp := range w.rps {
		rep, err := rp.Replay(f, w.c.Leaf)
		if err != nil {
			res.Err = err
			break
		}
		res.Reports = append(res.Reports, rep)
	}
	return res
}

// Files replays files under configs (Workers 0: every core) and returns
// their results in file order: the corpus run for a caller that wants
// every report at once (Config.Series or Points keeps each report's
// per-request series; ThresholdsOf or Report.Thresholds gives the
// thresholds). Memory grows with the reports, not the sessions.
func Files(configs []Config, files []string, leaf string, workers int) []Result {
	out := make([]Result, 0, len(files))
	c := Corpus{Configs: configs, Leaf: leaf, Workers: workers, Emit: func(r Result) { out = append(out, r) }}
	c.Run(files)
	return out
}
