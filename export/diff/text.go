package diff

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/export/blockview"
)

// levelName says a partition level as people read it: the adaptive
// partition is stored as a negative level (partition.LevelAdaptive).
func levelName(level int) string {
	if level < 0 {
		return "adaptive partition"
	}
	return "level " + strconv.Itoa(level)
}

// WriteText writes rep as text: a summary, one line per block, then the
// word diff of each block whose words changed, with context words of
// unchanged text around each change.
func WriteText(w io.Writer, rep *Report, blocks []Block, context int) error {
	fmt.Fprintf(w, "url   %s\n", rep.URL)
	for _, side := range []struct {
		name string
		r    CaptureRef
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
	if rep.Layout != nil {
		// Said before the blocks: when no block changed it is the change.
		fmt.Fprintf(w, "layout        outside every block: %s  →  %s\n\n", rep.Layout.Old, rep.Layout.New)
	}
	for _, c := range rep.Blocks {
		path := c.Path
		if c.Status == Moved && c.OldPath != c.Path {
			path = c.OldPath + "→" + c.Path
		}
		bytes := fmt.Sprint(c.NewBytes)
		switch c.Status {
		case Removed:
			bytes = fmt.Sprint(c.OldBytes)
		case TextChanged, MarkupOnly:
			bytes = fmt.Sprintf("%d→%d", c.OldBytes, c.NewBytes)
			if c.PartBytes < c.OldBytes+c.NewBytes {
				// The change lies in some of the block's units.
				bytes += fmt.Sprintf(" (changed %d in %d+%d parts)", c.PartBytes, len(c.OldParts), len(c.NewParts))
			}
		}
		status := string(c.Status)
		if c.Changed {
			status = "moved+changed"
			bytes = fmt.Sprintf("%d→%d", c.OldBytes, c.NewBytes)
		}
		line := fmt.Sprintf("%-12s  %-10s %-14s %s %s", status, path, orDash(c.Label), c.Tag, bytes)
		if len(c.Topic) > 0 {
			line += "  " + blockview.OneLine(strings.Join(c.Topic, " "), 60)
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
func wordDiffText(es []Edit, context int) string {
	var parts []string
	for i, e := range es {
		switch e.Op {
		case Equal:
			parts = append(parts, elide(e.Words, i > 0, i < len(es)-1, context))
		case Delete, Insert:
			open, close := "[-", "-]"
			if e.Op == Insert {
				open, close = "{+", "+}"
			}
			parts = append(parts, open+shownWords(e.Words)+close)
		}
	}
	return strings.Join(parts, " ")
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

// WriteHistoryText writes a -history listing as text: one line per
// capture, with the counts of what changed that are not zero.
func WriteHistoryText(w io.Writer, rep *History) error {
	fmt.Fprintf(w, "url %s: %d captures\n", rep.URL, len(rep.Captures))
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
