package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/export/diff"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"
)

const diffAbout = `Show what changed on a page between two of its captures in ARCHIVE, block
by block: which blocks changed as a reader sees them (their visible text)
and which changed only in their markup (a nonce in a script, a token in a
link, &nbsp; for a space).

-from and -to take T as cat -at does (14 digits YYYYMMDDhhmmss, a prefix
of them, or RFC 3339) and choose the capture nearest to it: the latest
capture inside the period T names, else the closest one before or after.
Defaults: the last two captures of URL. A revisit stands for the capture
whose payload it repeats. Both captures are partitioned at the same level
(-level, default: the level the later one was archived at).

Text output: a summary, one line per block
  STATUS PATH LABEL <TAG> BYTES [TOPIC]
with STATUS one of unchanged, text-changed, markup-only, added, removed,
moved, then a word diff of the visible text of every block whose words
changed: [-deleted-] {+inserted+}, with a few words of context. For a
changed block, BYTES is OLD→NEW and, when the change lies in some of the
block's parts (paragraphs, list items, cells), "(changed N in O+P parts)":
N bytes in O parts of the earlier capture and P of the later. Under a
markup-only block, "markup: OLD → NEW" shows the bytes around the first
difference (a nonce, a cache-buster, a renamed class).

-json prints one object instead (docs/DIFF.md): url, level, from, to
(date, record_id, file, offset), summary (counts by status, words
deleted and inserted, visible_change) and blocks, every block of both
captures once with status, path, old_path, label, tag, old_bytes,
new_bytes, topic, for blocks whose words changed, words: a list of
{"op": "=" | "-" | "+", "text": words}, for changed blocks old_parts
and new_parts ({"start", "end": byte offsets in each page, "markup_only"})
and part_bytes, and for markup-only blocks markup ({"old", "new"}: the
bytes around the first difference).

-html OUT writes one self-contained page (no network): the later capture
rendered with its changed blocks outlined, the changed parts inside them
highlighted and deleted/inserted words marked, a side panel listing the
changes, and a button to switch to the earlier capture. The captured
pages' scripts do not run.

-history lists every capture of URL instead, each compared with the one
before: when the page changed, and whether as a reader sees it (text) or
only in its markup. With -json, one object with a captures list.`

type diffOptions struct {
	from, to string
	level    int
	json     bool
	htmlOut  string
	history  bool
	context  int
}

func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("diff", "ARCHIVE URL", diffAbout, stderr)
	var o diffOptions
	fs.StringVar(&o.from, "from", "", "the earlier capture: the one nearest `T` (default: the one before -to)")
	fs.StringVar(&o.to, "to", "", "the later capture: the one nearest `T` (default: the latest)")
	fs.IntVar(&o.level, "level", 0, "partition `LEVEL` for both captures (0: the level the later one was archived at)")
	fs.BoolVar(&o.json, "json", false, "print JSON (fields in docs/DIFF.md)")
	fs.StringVar(&o.htmlOut, "html", "", "also write a self-contained page showing the changes to `OUT`")
	fs.BoolVar(&o.history, "history", false, "list every capture of URL with what changed since the one before")
	fs.IntVar(&o.context, "context", 6, "`WORDS` of unchanged text shown around each change in the text output")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() != 2:
		fmt.Fprintln(stderr, "blockwarc diff: want ARCHIVE and URL")
		fs.Usage()
		return exitUsage
	case o.level < 0:
		fmt.Fprintln(stderr, "blockwarc diff: -level must be 0 or more")
		return exitUsage
	case o.context < 0:
		fmt.Fprintln(stderr, "blockwarc diff: -context must be 0 or more")
		return exitUsage
	case o.history && (o.from != "" || o.to != "" || o.htmlOut != ""):
		fmt.Fprintln(stderr, "blockwarc diff: -history takes no -from, -to or -html")
		return exitUsage
	}
	for _, t := range []string{o.from, o.to} {
		if t == "" {
			continue
		}
		if _, _, err := export.ParsePeriod(t); err != nil {
			fmt.Fprintf(stderr, "blockwarc diff: bad time %q: %v\n", t, err)
			return exitUsage
		}
	}
	if o.htmlOut != "" {
		if fi, err := os.Stat(o.htmlOut); err == nil && fi.IsDir() {
			fmt.Fprintf(stderr, "blockwarc diff: write %s: is a directory\n", o.htmlOut)
			return exitUsage
		}
	}
	a, err := openArchive(fs.Arg(0), stderr)
	if err != nil {
		archiveError(stderr, "diff", fs.Arg(0), err)
		return exitFailure
	}
	defer a.Close()
	w := bufio.NewWriter(stdout)
	if o.history {
		err = diffHistory(ctx, a, fs.Arg(1), o, w)
	} else {
		err = diffTwo(ctx, a, fs.Arg(1), o, w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		archiveError(stderr, "diff", fs.Arg(0), err)
		return exitFailure
	}
	return exitOK
}

// pageVersions returns the captures of url that stand for a page (the
// response, resource and revisit records), in capture order.
func pageVersions(a *dedupe.Archive, url string) ([]dedupe.Version, error) {
	vs, err := a.Versions(warcio.SURT(url))
	if err != nil {
		return nil, err
	}
	out := vs[:0]
	for _, v := range vs {
		switch v.Type {
		case "response", "resource", "revisit", "":
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", url, dedupe.ErrNoCapture)
	}
	return out, nil
}

// nearest returns the index of the capture of vs nearest to the period
// t names (dedupe.Nearest); t has been checked by export.ParsePeriod.
func nearest(vs []dedupe.Version, t string) int {
	start, end, _ := export.ParsePeriod(t)
	return dedupe.Nearest(vs, start, end)
}

// loaded is one side of a comparison: the capture asked for, the capture
// its payload comes from (itself, or the one a revisit repeats), and its
// partition.
type loaded struct {
	asked, source dedupe.Version
	page          *dedupe.Page
	res           *partition.Result
	// shown says whether res is the partition the archive stores for the
	// capture (dedupe.ShownStored, ShownStoredSpans) or one made afresh
	// (dedupe.ShownAfresh).
	shown string
}

// payloadSource returns the index of the capture whose payload vs[i]
// shows: itself, or for a revisit the latest earlier non-revisit.
func payloadSource(vs []dedupe.Version, i int) (int, error) {
	for j := i; j >= 0; j-- {
		if vs[j].Type != "revisit" {
			return j, nil
		}
	}
	return -1, fmt.Errorf("revisit at %s: the capture it repeats is not in the archive", vs[i].Date.Format(time.RFC3339))
}

// loadPage reads capture i and partitions it as the archive stores it
// (dedupe.Page.Partition). Only a page the archive keeps whole, or asked
// at another level than it was archived at, is partitioned afresh; then
// prior, the partition of the capture it is compared with (nil for
// none), keeps an adaptive partition the same while the page's layout
// holds, as ingest does.
func loadPage(a *dedupe.Archive, pp *partition.Partitioner, vs []dedupe.Version, i, level int, prior *partition.Result) (*loaded, error) {
	j, err := payloadSource(vs, i)
	if err != nil {
		return nil, err
	}
	pg, err := a.ReadPage(&vs[j])
	if err != nil {
		return nil, err
	}
	if !pg.IsHTML() {
		return nil, fmt.Errorf("capture at %s is %s, not HTML", vs[j].Date.Format(time.RFC3339), orUnknown(pg.MediaType))
	}
	res, shown, err := pg.Partition(pp, level, prior)
	if err != nil {
		return nil, fmt.Errorf("partition capture at %s: %w", vs[j].Date.Format(time.RFC3339), err)
	}
	return &loaded{asked: vs[i], source: vs[j], page: pg, res: res, shown: shown}, nil
}

// side is l as one side of a diff.Report.
func (l *loaded) side() diff.Side {
	return diff.Side{Asked: l.asked, Source: l.source, Result: l.res, Shown: l.shown}
}

func orUnknown(s string) string {
	if s == "" {
		return "of unknown type"
	}
	return s
}

// diffLevel is the level both captures are partitioned at.
func diffLevel(o diffOptions, later dedupe.Version) int {
	switch {
	case o.level > 0:
		return o.level
	case later.Level != 0: // partition.LevelAdaptive is negative
		return later.Level
	}
	return dedupe.DefaultLevel
}

func diffTwo(ctx context.Context, a *dedupe.Archive, url string, o diffOptions, w io.Writer) error {
	vs, err := pageVersions(a, url)
	if err != nil {
		return err
	}
	to := len(vs) - 1
	if o.to != "" {
		to = nearest(vs, o.to)
	}
	from := to - 1
	if o.from != "" {
		from = nearest(vs, o.from)
	}
	if from < 0 {
		return fmt.Errorf("%s has one capture (%s): nothing to compare it with", url, vs[to].Date.Format(time.RFC3339))
	}
	if from == to {
		return fmt.Errorf("-from and -to both name the capture at %s", vs[to].Date.Format(time.RFC3339))
	}
	if from > to {
		from, to = to, from
	}
	level := diffLevel(o, vs[to])
	pp := partition.NewPartitioner()
	oldP, err := loadPage(a, pp, vs, from, level, nil)
	if err != nil {
		return err
	}
	// The partitioner reuses its tables, not its results: a second
	// Partitioner keeps both results independent.
	newP, err := loadPage(a, partition.NewPartitioner(), vs, to, level, oldP.res)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	blocks, sum := diff.Compare(oldP.res, newP.res)
	rep := diff.NewReport(url, level, oldP.side(), newP.side(), blocks, sum)
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = diff.WriteText(w, rep, blocks, o.context)
	}
	if err != nil {
		return err
	}
	if o.htmlOut != "" {
		page := diff.HTML(rep, oldP.res, newP.res, blocks)
		if err := writeFileAtomic(o.htmlOut, func(w io.Writer) error {
			_, err := w.Write(page)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

func diffHistory(ctx context.Context, a *dedupe.Archive, url string, o diffOptions, w io.Writer) error {
	vs, err := pageVersions(a, url)
	if err != nil {
		return err
	}
	rep := diff.History{URL: url, Captures: []diff.HistoryEntry{}}
	pps := [2]*partition.Partitioner{partition.NewPartitioner(), partition.NewPartitioner()}
	var prev *loaded
	for i := range vs {
		if err := ctx.Err(); err != nil {
			return err
		}
		v := vs[i]
		e := diff.HistoryEntry{Date: v.Date.UTC().Format(time.RFC3339Nano), Type: v.Type, RecordID: v.RecordID}
		// Both sides of a comparison must be partitioned at one level;
		// history uses the latest capture's, or -level.
		var prior *partition.Result
		if prev != nil {
			prior = prev.res
		}
		cur, err := loadPage(a, pps[i%2], vs, i, diffLevel(o, vs[len(vs)-1]), prior)
		switch {
		case err != nil && errors.Is(err, context.Canceled):
			return err
		case err != nil:
			e.Status, e.Error = "unreadable", err.Error()
			cur = nil
		case prev == nil:
			e.Status, e.Partition = "first", cur.shown
		default:
			_, sum := diff.Compare(prev.res, cur.res)
			e.Summary, e.Partition, e.Status = &sum, cur.shown, diff.HistoryStatus(sum)
		}
		if cur != nil {
			prev = cur
		}
		rep.Captures = append(rep.Captures, e)
	}
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return diff.WriteHistoryText(w, &rep)
}
