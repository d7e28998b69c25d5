package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"blockwarc/export"
	"blockwarc/warcio"
)

const indexAbout = `Write a CDXJ index (pywb / Common Crawl style) of WARC and ARC inputs,
"urlkey timestamp {json}" sorted by urlkey then timestamp: one line per
response, revisit, resource and metadata record (not warcinfo, request or
application/warc-fields records, as with warcio.js and pywb). INPUT is a
file, a directory (searched recursively), a glob pattern or - for standard
input. Records are sorted with bounded memory (-mem); each input is read
once.`

// indexOptions are the flags of the index command.
type indexOptions struct {
	out     string
	mem     int64
	policy  warcio.Policy
	tempDir string
}

func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("index", "INPUT...", indexAbout, stderr)
	var opts indexOptions
	fs.StringVar(&opts.out, "o", "", "write the index to `FILE` (default: standard output)")
	memFlag := fs.String("mem", "1GiB", "`SIZE` of memory for sorting records, e.g. 512MiB or 4GiB")
	policyFlag := fs.String("policy", "warn", "`POLICY` for malformed input: skip (count it), warn (also print each error with file and offset) or fail")
	fs.StringVar(&opts.tempDir, "tmp", "", "`DIR` for temporary sort runs (default: the system temp dir)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "blockwarc index: no INPUT given")
		fs.Usage()
		return exitUsage
	}
	mem, err := parseSize(*memFlag)
	if err != nil || mem <= 0 {
		fmt.Fprintf(stderr, "blockwarc index: bad -mem %q: want a size such as 512MiB\n", *memFlag)
		return exitUsage
	}
	opts.mem = mem
	var ok bool
	if opts.policy, ok = parsePolicy(*policyFlag); !ok {
		fmt.Fprintf(stderr, "blockwarc index: bad -policy %q: want skip, warn or fail\n", *policyFlag)
		return exitUsage
	}
	st, err := index(ctx, fs.Args(), opts, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc index: %v\n", err)
		return exitFailure
	}
	if st.Skipped > 0 {
		fmt.Fprintf(stderr, "blockwarc index: skipped %d malformed record(s) or region(s)\n", st.Skipped)
		return exitSkipped
	}
	return exitOK
}

// index writes the CDXJ of inputs to opts.out or stdout.
func index(ctx context.Context, inputs []string, opts indexOptions, stdout, stderr io.Writer) (warcio.WalkStats, error) {
	wopts := warcio.WalkOptions{
		MemLimit: opts.mem,
		TempDir:  opts.tempDir,
		Stdin:    os.Stdin,
		Reader:   warcio.Options{Policy: opts.policy},
		Keep:     export.CDXJKeep,
	}
	if opts.policy == warcio.PolicyWarn {
		wopts.Reader.OnError = func(err error) {
			fmt.Fprintf(stderr, "blockwarc index: warning: %v\n", err)
		}
	}
	if bar := newProgress(inputs, stderr); bar != nil {
		defer bar.Finish()
		wopts.Progress = func(n int64) { bar.Set64(n) }
		if wopts.Reader.OnError != nil {
			warn := wopts.Reader.OnError
			wopts.Reader.OnError = func(err error) { bar.Clear(); warn(err) }
		}
	}

	var w io.Writer = stdout
	var outFile *atomicFile
	if opts.out != "" {
		f, err := createAtomic(opts.out)
		if err != nil {
			return warcio.WalkStats{}, fmt.Errorf("create output: %w", err)
		}
		defer f.Discard()
		outFile, w = f, f
	}

	sp := &lineSpool{dir: opts.tempDir}
	defer sp.cleanup()
	var line []byte
	var curKey string
	ix := export.NewCDXJIndexer(func(e *export.CDXJEntry) error {
		line = e.AppendTo(line[:0])
		if e.URLKey == curKey {
			return sp.writeMain(line)
		}
		// A POST entry keyed by its request body: sorted in at the end.
		sp.addLate(line)
		return nil
	})
	st, err := warcio.Walk(ctx, inputs, wopts, func(c *warcio.Capture) error {
		if c.Key != curKey {
			// Flush the held entry under the key it was captured with.
			if err := ix.Flush(); err != nil {
				return err
			}
			curKey = c.Key
		}
		return ix.Add(c)
	})
	if err == nil {
		err = ix.Flush()
	}
	if err != nil {
		return st, err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := sp.copyTo(bw); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write index: %w", err)
	}
	if outFile != nil {
		if err := outFile.Commit(); err != nil {
			return st, fmt.Errorf("write index: %w", err)
		}
	}
	return st, nil
}

// lineSpool holds the CDXJ lines in output order: the main stream (already
// sorted, kept in memory up to spoolMem, then in a temporary file) and the
// few "late" lines of POST captures whose key is not their capture's key,
// merged in when the index is written out.
type lineSpool struct {
	dir      string
	memLimit int // 0: spoolMem
	mem      bytes.Buffer
	f        *os.File
	fw       *bufio.Writer
	late     [][]byte
	run      [][]byte // main lines of one (urlkey, timestamp), not written yet
	undated  [][]byte // main lines of the current urlkey without a date
	key      []byte   // the current urlkey
}

const spoolMem = 16 << 20

// maxUndated bounds the undated lines of one urlkey held back.
const maxUndated = 1 << 16

// writeMain takes the next line of the main stream. Lines come sorted by
// urlkey and timestamp; lines that share both are held and written in
// byte order (compareCDXJ), whatever order the walk gave them in.
//
// The walk gives a key's records without a parseable date first; their
// timestamp "null" sorts after every date byte-wise, so they are held
// and written after the key's dated lines.
func (s *lineSpool) writeMain(line []byte) error {
	k, ts := keyTime(line)
	if s.key != nil && !bytes.Equal(k, s.key) {
		if err := s.flushKey(); err != nil {
			return err
		}
	}
	if s.key == nil {
		s.key = slices.Clone(k)
	}
	if string(ts) == "null" {
		s.undated = append(s.undated, slices.Clone(line))
		if len(s.undated) >= maxUndated {
			// A hostile dump: memory stays bounded, the key's order is
			// then walk order, not byte order.
			if err := s.flushRun(s.undated); err != nil {
				return err
			}
			s.undated = s.undated[:0]
		}
		return nil
	}
	if len(s.run) > 0 && !sameKeyTime(s.run[0], line) {
		if err := s.flushRun(s.run); err != nil {
			return err
		}
		s.run = s.run[:0]
	}
	s.run = append(s.run, slices.Clone(line))
	return nil
}

// flushKey writes what is held of the current key.
func (s *lineSpool) flushKey() error {
	if err := s.flushRun(s.run); err != nil {
		return err
	}
	if err := s.flushRun(s.undated); err != nil {
		return err
	}
	s.run, s.undated, s.key = s.run[:0], s.undated[:0], nil
	return nil
}

func (s *lineSpool) flushRun(run [][]byte) error {
	slices.SortFunc(run, bytes.Compare)
	for _, l := range run {
		if err := s.writeSorted(l); err != nil {
			return err
		}
	}
	return nil
}

func keyTime(l []byte) (key, ts []byte) {
	key, rest, _ := bytes.Cut(l, []byte{' '})
	ts, _, _ = bytes.Cut(rest, []byte{' '})
	return key, ts
}

// sameKeyTime reports whether two CDXJ lines share urlkey and timestamp.
func sameKeyTime(a, b []byte) bool {
	ka, ta := keyTime(a)
	kb, tb := keyTime(b)
	return bytes.Equal(ka, kb) && bytes.Equal(ta, tb)
}

func (s *lineSpool) writeSorted(line []byte) error {
	if s.f == nil {
		s.mem.Write(line)
		limit := s.memLimit
		if limit == 0 {
			limit = spoolMem
		}
		if s.mem.Len() < limit {
			return nil
		}
		f, err := os.CreateTemp(s.dir, "blockwarc-index-*.cdxj")
		if err != nil {
			return fmt.Errorf("create temp file: %w", err)
		}
		s.f, s.fw = f, bufio.NewWriterSize(f, 256<<10)
		_, err = s.fw.Write(s.mem.Bytes())
		s.mem = bytes.Buffer{}
		return err
	}
	_, err := s.fw.Write(line)
	return err
}

func (s *lineSpool) addLate(line []byte) { s.late = append(s.late, slices.Clone(line)) }

// copyTo writes the main lines merged with the sorted late lines.
func (s *lineSpool) copyTo(w *bufio.Writer) error {
	if err := s.flushKey(); err != nil {
		return err
	}
	var src *bufio.Reader
	if s.f != nil {
		if err := s.fw.Flush(); err != nil {
			return fmt.Errorf("write temp file: %w", err)
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
		src = bufio.NewReaderSize(s.f, 256<<10)
	} else {
		src = bufio.NewReaderSize(&s.mem, 256<<10)
	}
	slices.SortStableFunc(s.late, compareCDXJ)
	late := s.late
	for {
		line, err := src.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: assemble it.
			full := slices.Clone(line)
			for err == bufio.ErrBufferFull {
				line, err = src.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if len(line) > 0 {
			for len(late) > 0 && compareCDXJ(late[0], line) < 0 {
				if _, err := w.Write(late[0]); err != nil {
					return fmt.Errorf("write index: %w", err)
				}
				late = late[1:]
			}
			if _, err := w.Write(line); err != nil {
				return fmt.Errorf("write index: %w", err)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
	}
	for _, l := range late {
		if _, err := w.Write(l); err != nil {
			return fmt.Errorf("write index: %w", err)
		}
	}
	return nil
}

// compareCDXJ orders lines by urlkey, then timestamp, then the whole
// line byte by byte: lines of equal key and time (a response and its
// request) come in the order `LC_ALL=C sort` gives them, so an index can
// be merged with others by `sort -m`.
func compareCDXJ(a, b []byte) int {
	ka, ra, _ := bytes.Cut(a, []byte{' '})
	kb, rb, _ := bytes.Cut(b, []byte{' '})
	if c := bytes.Compare(ka, kb); c != 0 {
		return c
	}
	ta, _, _ := bytes.Cut(ra, []byte{' '})
	tb, _, _ := bytes.Cut(rb, []byte{' '})
	if c := bytes.Compare(ta, tb); c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

func (s *lineSpool) cleanup() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

// newProgress returns a progress bar over the inputs' stored size when
// stderr is a terminal, else nil.
func newProgress(inputs []string, stderr io.Writer) *progressbar.ProgressBar {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var total int64
	for _, in := range inputs {
		_ = filepath.WalkDir(in, func(_ string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					total += fi.Size()
				}
			}
			return nil
		})
	}
	if total == 0 {
		total = -1
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription("indexing"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)
}

// parseSize reads "4MiB", "1GiB", "512M", "100k", "1e6" or plain bytes.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	lower := strings.ToLower(t)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
	} {
		if strings.HasSuffix(lower, u.suffix) {
			lower, mult = strings.TrimSpace(strings.TrimSuffix(lower, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(lower, 64)
	if err != nil || f < 0 {
		return 0, errors.New("bad size")
	}
	return int64(f * float64(mult)), nil
}

// parsePolicy reads the -policy flag shared by the commands that read
// WARC/ARC input.
func parsePolicy(s string) (warcio.Policy, bool) {
	switch s {
	case "skip":
		return warcio.PolicySkip, true
	case "warn":
		return warcio.PolicyWarn, true
	case "fail":
		return warcio.PolicyFail, true
	}
	return 0, false
}
