package diff

// The report of a comparison (blockwarc diff): its model and -json form
// here, its text form in text.go, its -html page in html.go.

import (
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/export/blockview"
	"github.com/blockwarc/blockwarc/partition"
)

// Report is a comparison of two captures as blockwarc diff shows it, and
// its -json form (docs/DIFF.md). Field
// names and meanings are stable.
type Report struct {
	URL     string     `json:"url"`
	Level   int        `json:"level"`
	From    CaptureRef `json:"from"`
	To      CaptureRef `json:"to"`
	Summary Summary    `json:"summary"`
	// Layout shows where the bytes outside every block differ (the
	// layout: scripts, styles, tags between blocks), as Markup does for a
	// block; absent when the layout is the same.
	Layout *MarkupChange `json:"layout,omitempty"`
	Blocks []BlockChange `json:"blocks"`
}

// CaptureRef is one side of a Report.
type CaptureRef struct {
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

// BlockChange is one block of a Report.
type BlockChange struct {
	Status   Status     `json:"status"`
	Path     string     `json:"path"`               // in the later capture; the earlier's for removed
	OldPath  string     `json:"old_path,omitempty"` // in the earlier capture; absent for added
	Label    string     `json:"label"`
	Tag      string     `json:"tag"`
	OldBytes int        `json:"old_bytes"`
	NewBytes int        `json:"new_bytes"`
	Topic    []string   `json:"topic"`
	Words    []WordEdit `json:"words,omitempty"`
	// Where inside a text-changed or markup-only block the change lies:
	// the changed units (paragraphs, list items, cells) of each side,
	// and their bytes, both sides together (Block.OldParts,
	// NewParts).
	OldParts  []PartChange `json:"old_parts,omitempty"`
	NewParts  []PartChange `json:"new_parts,omitempty"`
	PartBytes int          `json:"part_bytes,omitempty"`
	// For a markup-only block: the bytes around the first difference
	// of its first changed part, in each capture — what kind of churn
	// it is (a nonce, a cache-buster, a renamed class).
	Markup *MarkupChange `json:"markup,omitempty"`
	// Changed (moved blocks): its bytes changed as it moved, its words
	// did not; Markup shows where.
	Changed bool `json:"changed,omitempty"`
}

// MarkupChange shows the bytes around the first difference of a
// markup-only block in each capture.
type MarkupChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// PartChange is a changed part: [start, end) byte offsets in its page,
// and whether only its markup changed.
type PartChange struct {
	Start      int  `json:"start"`
	End        int  `json:"end"`
	MarkupOnly bool `json:"markup_only"`
}

// WordEdit is an Edit of a BlockChange, its words joined.
type WordEdit struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// A Side is one capture of a comparison: the capture asked for, the
// capture its payload comes from (itself, or the one a revisit repeats),
// its partition, and which partition that is (dedupe.ShownStored,
// ShownStoredSpans or ShownAfresh).
type Side struct {
	Asked, Source dedupe.Version
	Result        *partition.Result
	Shown         string
}

func refOf(l Side) CaptureRef {
	r := CaptureRef{
		Date: l.Asked.Date.UTC().Format(time.RFC3339Nano), Type: l.Asked.Type, RecordID: l.Asked.RecordID,
		File: l.Asked.File, Offset: l.Asked.Offset, Charset: l.Result.Charset, Partition: l.Shown,
	}
	if l.Source.RecordID != l.Asked.RecordID || !l.Source.Date.Equal(l.Asked.Date) {
		r.PayloadFrom = l.Source.Date.UTC().Format(time.RFC3339Nano)
	}
	return r
}

// NewReport is the report of the comparison of oldP with newP at level:
// blocks and sum as Compare gave them.
func NewReport(url string, level int, oldP, newP Side, blocks []Block, sum Summary) *Report {
	rep := &Report{URL: url, Level: level, From: refOf(oldP), To: refOf(newP), Summary: sum, Blocks: []BlockChange{}}
	if sum.LayoutChanged && oldP.Result != nil && newP.Result != nil {
		rep.Layout = LayoutChange(oldP.Result.Layout, newP.Result.Layout)
	}
	for _, b := range blocks {
		c := changeOf(b)
		if (b.Status == MarkupOnly || b.Changed) && len(b.OldParts) > 0 && len(b.NewParts) > 0 {
			o, n := b.OldParts[0], b.NewParts[0]
			c.Markup = markupOf(oldP.Result.Doc[o.Start:o.End], newP.Result.Doc[n.Start:n.End])
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
func markupOf(a, b []byte) *MarkupChange {
	p, s := CommonEnds(a, b)
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
	return &MarkupChange{Old: cut(a), New: cut(b)}
}

func changeOf(b Block) BlockChange {
	c := BlockChange{Status: b.Status, Topic: []string{}, Changed: b.Changed}
	main := b.New
	if main == nil {
		main = b.Old
	}
	c.Path, c.Label, c.Tag, c.Topic = main.Path, string(main.Label), blockview.BlockTag(main), append(c.Topic, main.Topic...)
	if b.Old != nil {
		c.OldPath, c.OldBytes = b.Old.Path, b.Old.End-b.Old.Start
	}
	if b.New != nil {
		c.NewBytes = b.New.End - b.New.Start
	}
	for _, e := range b.Words {
		c.Words = append(c.Words, WordEdit{Op: string(e.Op), Text: strings.Join(e.Words, " ")})
	}
	for _, p := range b.OldParts {
		c.OldParts = append(c.OldParts, PartChange{p.Start, p.End, p.MarkupOnly})
	}
	for _, p := range b.NewParts {
		c.NewParts = append(c.NewParts, PartChange{p.Start, p.End, p.MarkupOnly})
	}
	c.PartBytes = b.PartBytes()
	return c
}

// HistoryEntry is one capture of a -history listing.
type HistoryEntry struct {
	Date     string `json:"date"`
	Type     string `json:"type"`
	RecordID string `json:"record_id"`
	// Status: "first", "unchanged", "markup-only", "text-changed", or
	// "unreadable" (Error says why: not HTML, a restore failure).
	Status  string   `json:"status"`
	Summary *Summary `json:"summary,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Partition: which partition of the capture was compared, as in
	// diff -json's from/to (absent when unreadable).
	Partition string `json:"partition,omitempty"`
}

// History is the -history listing of a URL's captures.
type History struct {
	URL      string         `json:"url"`
	Captures []HistoryEntry `json:"captures"`
}

// HistoryStatus is the Status of a HistoryEntry compared with the one
// before: "text-changed", "markup-only" or "unchanged".
func HistoryStatus(sum Summary) string {
	switch {
	case sum.VisibleChange:
		return "text-changed"
	case sum.Changed():
		return "markup-only"
	}
	return "unchanged"
}
