package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"blockwarc/dedupe"
	"blockwarc/export"
	"blockwarc/export/diff"
	"blockwarc/partition"
	"blockwarc/warcio"
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

func orUnknown(s string) string {
	if s == "" {
		return "of unknown type"
	}
	return s
}

// levelName says a partition level as people read it: the adaptive
// partition is stored as a negative level (partition.LevelAdaptive).
func levelName(level int) string {
	if level < 0 {
		return "adaptive partition"
	}
	return "level " + strconv.Itoa(level)
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
	rep := newDiffReport(url, level, oldP, newP, blocks, sum)
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = writeDiffText(w, rep, blocks, o.context)
	}
	if err != nil {
		return err
	}
	if o.htmlOut != "" {
		page, err := diffHTML(rep, oldP, newP, blocks)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(o.htmlOut, func(w io.Writer) error {
			_, err := w.Write(page)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// diffReport is the -json form of a comparison (docs/DIFF.md). Field
// names and meanings are stable.
type diffReport struct {
	URL     string        `json:"url"`
	Level   int           `json:"level"`
	From    captureRef    `json:"from"`
	To      captureRef    `json:"to"`
	Summary diff.Summary  `json:"summary"`
	Blocks  []blockChange `json:"blocks"`
}

type captureRef struct {
	Date     string `json:"date"`
	Type     string `json:"type"`
	RecordID string `json:"record_id"`
	File     string `json:"file"`
	Offset   int64  `json:"offset"`
	// PayloadFrom is the date of the capture a revisit repeats, whose
	// payload was compared; absent when the capture has its own.
	PayloadFrom string `json:"payload_from,omitempty"`
	Charset     string `json:"charset"`
	// Partition says which partition the blocks are: "stored" (the
	// archive's blocks for the capture), "stored-spans" (the archive's
	// blocks, cut by an older partition, read at their spans) or "afresh"
	// (made now: the payload is stored whole, or -level differs from the
	// archived level).
	Partition string `json:"partition"`
}

type blockChange struct {
	Status   diff.Status `json:"status"`
	Path     string      `json:"path"`               // in the later capture; the earlier's for removed
	OldPath  string      `json:"old_path,omitempty"` // in the earlier capture; absent for added
	Label    string      `json:"label"`
	Tag      string      `json:"tag"`
	OldBytes int         `json:"old_bytes"`
	NewBytes int         `json:"new_bytes"`
	Topic    []string    `json:"topic"`
	Words    []wordEdit  `json:"words,omitempty"`
	// Where inside a text-changed or markup-only block the change lies:
	// the changed units (paragraphs, list items, cells) of each side,
	// and their bytes, both sides together (diff.Block.OldParts,
	// NewParts).
	OldParts  []partChange `json:"old_parts,omitempty"`
	NewParts  []partChange `json:"new_parts,omitempty"`
	PartBytes int          `json:"part_bytes,omitempty"`
	// For a markup-only block: the bytes around the first difference
	// of its first changed part, in each capture — what kind of churn
	// it is (a nonce, a cache-buster, a renamed class).
	Markup *markupChange `json:"markup,omitempty"`
}

type markupChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// partChange is a changed part: [start, end) byte offsets in its page,
// and whether only its markup changed.
type partChange struct {
	Start      int  `json:"start"`
	End        int  `json:"end"`
	MarkupOnly bool `json:"markup_only"`
}

type wordEdit struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

func refOf(l *loaded) captureRef {
	r := captureRef{
		Date: l.asked.Date.UTC().Format(time.RFC3339Nano), Type: l.asked.Type, RecordID: l.asked.RecordID,
		File: l.asked.File, Offset: l.asked.Offset, Charset: l.res.Charset, Partition: l.shown,
	}
	if l.source.RecordID != l.asked.RecordID || !l.source.Date.Equal(l.asked.Date) {
		r.PayloadFrom = l.source.Date.UTC().Format(time.RFC3339Nano)
	}
	return r
}

func newDiffReport(url string, level int, oldP, newP *loaded, blocks []diff.Block, sum diff.Summary) *diffReport {
	rep := &diffReport{URL: url, Level: level, From: refOf(oldP), To: refOf(newP), Summary: sum, Blocks: []blockChange{}}
	for _, b := range blocks {
		c := changeOf(b)
		if b.Status == diff.MarkupOnly && len(b.OldParts) > 0 && len(b.NewParts) > 0 {
			o, n := b.OldParts[0], b.NewParts[0]
			c.Markup = markupOf(oldP.res.Doc[o.Start:o.End], newP.res.Doc[n.Start:n.End])
		}
		rep.Blocks = append(rep.Blocks, c)
	}
	return rep
}

// markupContext is how many bytes markupOf shows before and after the
// first difference.
const markupContext = 24

// markupOf shows where two byte strings differ: the bytes from a little
// before their common prefix ends to a little after their common suffix
// begins, each at most 2*markupContext+40 bytes, white space folded,
// invalid UTF-8 replaced.
func markupOf(a, b []byte) *markupChange {
	p, s := diff.CommonEnds(a, b)
	cut := func(x []byte) string {
		from, to := max(0, p-markupContext), min(len(x), len(x)-s+markupContext)
		if to-from > 2*markupContext+40 {
			to = from + 2*markupContext + 40
		}
		t := strings.Join(strings.Fields(strings.ToValidUTF8(string(x[from:to]), "\uFFFD")), " ")
		if from > 0 {
			t = "…" + t
		}
		if to < len(x) {
			t += "…"
		}
		return t
	}
	return &markupChange{Old: cut(a), New: cut(b)}
}

func changeOf(b diff.Block) blockChange {
	c := blockChange{Status: b.Status, Topic: []string{}}
	main := b.New
	if main == nil {
		main = b.Old
	}
	c.Path, c.Label, c.Tag, c.Topic = main.Path, string(main.Label), blockTag(main), append(c.Topic, main.Topic...)
	if b.Old != nil {
		c.OldPath, c.OldBytes = b.Old.Path, b.Old.End-b.Old.Start
	}
	if b.New != nil {
		c.NewBytes = b.New.End - b.New.Start
	}
	for _, e := range b.Words {
		c.Words = append(c.Words, wordEdit{Op: string(e.Op), Text: strings.Join(e.Words, " ")})
	}
	for _, p := range b.OldParts {
		c.OldParts = append(c.OldParts, partChange{p.Start, p.End, p.MarkupOnly})
	}
	for _, p := range b.NewParts {
		c.NewParts = append(c.NewParts, partChange{p.Start, p.End, p.MarkupOnly})
	}
	c.PartBytes = b.PartBytes()
	return c
}

func writeDiffText(w io.Writer, rep *diffReport, blocks []diff.Block, context int) error {
	fmt.Fprintf(w, "url   %s\n", rep.URL)
	for _, side := range []struct {
		name string
		r    captureRef
	}{{"from", rep.From}, {"to  ", rep.To}} {
		fmt.Fprintf(w, "%s  %s %s", side.name, side.r.Date, side.r.Type)
		if side.r.PayloadFrom != "" {
			fmt.Fprintf(w, " (payload of %s)", side.r.PayloadFrom)
		}
		fmt.Fprintf(w, "  %s@%d\n", side.r.File, side.r.Offset)
	}
	if n := shownNote(rep.From.Partition, rep.To.Partition); n != "" {
		fmt.Fprintf(w, "note  %s\n", n)
	}
	s := rep.Summary
	verdict := s.Verdict()
	fmt.Fprintf(w, "%s: %s; %d unchanged, %d text-changed, %d markup-only, %d added, %d removed, %d moved; %d words deleted, %d inserted\n\n",
		levelName(rep.Level), verdict, s.Unchanged, s.TextChanged, s.MarkupOnly, s.Added, s.Removed, s.Moved, s.WordsDeleted, s.WordsInserted)
	for _, c := range rep.Blocks {
		path := c.Path
		if c.Status == diff.Moved && c.OldPath != c.Path {
			path = c.OldPath + "→" + c.Path
		}
		bytes := fmt.Sprint(c.NewBytes)
		switch c.Status {
		case diff.Removed:
			bytes = fmt.Sprint(c.OldBytes)
		case diff.TextChanged, diff.MarkupOnly:
			bytes = fmt.Sprintf("%d→%d", c.OldBytes, c.NewBytes)
			if c.PartBytes < c.OldBytes+c.NewBytes {
				// The change lies in some of the block's units.
				bytes += fmt.Sprintf(" (changed %d in %d+%d parts)", c.PartBytes, len(c.OldParts), len(c.NewParts))
			}
		}
		line := fmt.Sprintf("%-12s  %-10s %-14s %s %s", c.Status, path, orDash(c.Label), c.Tag, bytes)
		if len(c.Topic) > 0 {
			line += "  " + oneLine(strings.Join(c.Topic, " "), 60)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		if c.Markup != nil {
			fmt.Fprintf(w, "              markup: %s  →  %s\n", c.Markup.Old, c.Markup.New)
		}
	}
	first := true
	for i, b := range blocks {
		if len(b.Words) == 0 {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		c := rep.Blocks[i]
		fmt.Fprintf(w, "%s %s %s %s\n", c.Status, c.Path, orDash(c.Label), c.Tag)
		fmt.Fprintf(w, "  %s\n", wordDiffText(b.Words, context))
	}
	return nil
}

// shownNote says, when either side of a comparison is not the partition
// the archive stores, which one is shown; "" when both are stored.
func shownNote(from, to string) string {
	var out []string
	for _, side := range []struct{ name, shown string }{{"from", from}, {"to", to}} {
		switch side.shown {
		case dedupe.ShownAfresh:
			out = append(out, side.name+": partitioned afresh, not the stored partition (payload stored whole, or another -level)")
		case dedupe.ShownStoredSpans:
			out = append(out, side.name+": the stored blocks, cut by an older partition, read at their spans")
		}
	}
	return strings.Join(out, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// maxShownWords bounds one inserted or deleted run in the text output
// (the JSON has every word).
const maxShownWords = 120

// wordDiffText renders an edit script as git's --word-diff=plain does,
// keeping context words of unchanged text around each change.
func wordDiffText(es []diff.Edit, context int) string {
	var parts []string
	for i, e := range es {
		switch e.Op {
		case diff.Equal:
			parts = append(parts, elide(e.Words, i > 0, i < len(es)-1, context))
		case diff.Delete, diff.Insert:
			open, close := "[-", "-]"
			if e.Op == diff.Insert {
				open, close = "{+", "+}"
			}
			parts = append(parts, open+shownWords(e.Words)+close)
		}
	}
	return strings.Join(parts, " ")
}

// historyEntry is one capture of a -history listing.
type historyEntry struct {
	Date     string `json:"date"`
	Type     string `json:"type"`
	RecordID string `json:"record_id"`
	// Status: "first", "unchanged", "markup-only", "text-changed", or
	// "unreadable" (Error says why: not HTML, a restore failure).
	Status  string        `json:"status"`
	Summary *diff.Summary `json:"summary,omitempty"`
	Error   string        `json:"error,omitempty"`
	// Partition: which partition of the capture was compared, as in
	// diff -json's from/to (absent when unreadable).
	Partition string `json:"partition,omitempty"`
}

type historyReport struct {
	URL      string         `json:"url"`
	Captures []historyEntry `json:"captures"`
}

func diffHistory(ctx context.Context, a *dedupe.Archive, url string, o diffOptions, w io.Writer) error {
	vs, err := pageVersions(a, url)
	if err != nil {
		return err
	}
	rep := historyReport{URL: url, Captures: []historyEntry{}}
	pps := [2]*partition.Partitioner{partition.NewPartitioner(), partition.NewPartitioner()}
	var prev *loaded
	for i := range vs {
		if err := ctx.Err(); err != nil {
			return err
		}
		v := vs[i]
		e := historyEntry{Date: v.Date.UTC().Format(time.RFC3339Nano), Type: v.Type, RecordID: v.RecordID}
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
			e.Summary, e.Partition = &sum, cur.shown
			switch {
			case sum.VisibleChange:
				e.Status = "text-changed"
			case sum.Changed():
				e.Status = "markup-only"
			default:
				e.Status = "unchanged"
			}
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
	fmt.Fprintf(w, "url %s: %d captures\n", url, len(rep.Captures))
	for _, e := range rep.Captures {
		line := fmt.Sprintf("%-30s %-8s %-12s", e.Date, e.Type, e.Status)
		if s := e.Summary; s != nil && s.Changed() {
			// Only the counts that are not zero: a history is read down a
			// column of dates.
			var parts []string
			for _, c := range []struct {
				n    int
				what string
			}{{s.TextChanged, "text-changed"}, {s.MarkupOnly, "markup-only"}, {s.Added, "added"}, {s.Removed, "removed"}, {s.Moved, "moved"}} {
				if c.n > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
				}
			}
			line += " " + strings.Join(parts, ", ")
			if s.WordsDeleted+s.WordsInserted > 0 {
				line += fmt.Sprintf("; words -%d +%d", s.WordsDeleted, s.WordsInserted)
			}
		}
		if e.Error != "" {
			line += " " + e.Error
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	return nil
}

// elide shortens a run of unchanged words to the context words next to
// the changes before it (lead) and after it (trail).
func elide(ws []string, lead, trail bool, context int) string {
	switch {
	case lead && trail && len(ws) > 2*context+1:
		return strings.Join(ws[:context], " ") + " … " + strings.Join(ws[len(ws)-context:], " ")
	case lead && !trail && len(ws) > context:
		return strings.Join(ws[:context], " ") + " …"
	case !lead && trail && len(ws) > context:
		return "… " + strings.Join(ws[len(ws)-context:], " ")
	}
	return strings.Join(ws, " ")
}

// shownWords joins an inserted or deleted run, at most maxShownWords of it.
func shownWords(ws []string) string {
	if len(ws) > maxShownWords {
		return strings.Join(ws[:maxShownWords], " ") + fmt.Sprintf(" … (%d more words)", len(ws)-maxShownWords)
	}
	return strings.Join(ws, " ")
}
