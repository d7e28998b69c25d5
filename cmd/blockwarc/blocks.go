package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/export/blockview"
	"github.com/blockwarc/blockwarc/partition"
)

const blocksAbout = `Show the block partition of one HTML page (FILE, or - for standard input;
plain or gzip-compressed, told apart by the gzip magic bytes), or of one
capture of URL in ARCHIVE: the capture nearest to -at T (T as cat -at
takes it; default the latest), shown as the archive stores it: the blocks
kept for that capture, which follow the URL's earlier captures while its
layout holds (diff and the tables show the same). A payload stored whole,
or -level other than the archived level, is partitioned afresh, and a
note on standard error says so.

By default one line per block of the block tree, indented by block depth:
  PATH <TAG#ID.CLASS> LABEL BYTES [TOPIC]
with a * after PATH on the kept blocks (the leaves at -level, which the
layout replaces by placeholders).

-json prints one object instead:
  {"bytes": page size, "kept": number of kept blocks,
   "partition": (captures of an archive) "stored", "stored-spans" (the
   stored blocks, cut by an older partition, read at their spans) or
   "afresh",
   "blocks": [ ... every block in document order (parents before children) ... ]}
each block with the fields
  path, depth (in the block tree, 1 for top-level blocks), dom_depth
  (of the block's node in the page), level, kept, tag, id, class,
  start, end, bytes (byte span [start, end) of the page),
  label, topic (list of words), text_len, words, links, link_text_ratio,
  images, forms, inputs, headings, and text (whitespace-normalised; kept
  blocks only).

-main prints only the main text: the page's headline on the first line,
then its standfirst (a lead set apart beside the headline), then the
article body (the tables' main_text is the body alone).

-html OUT also writes a copy of the page in which every kept block is
outlined and captioned with its path, label and topic, for looking at the
partition in a browser. The page's own bytes are kept; only attributes,
<span> wrappers (around blocks that do not begin with their own start tag)
and one <style> element are inserted. OUT must not be a directory or the
input page.`

// blocksOptions are the flags of the blocks command.
type blocksOptions struct {
	at      string
	level   int
	json    bool
	main    bool
	htmlOut string
	max     byteSize
}

func runBlocks(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("blocks", "FILE|- | ARCHIVE URL", blocksAbout, stderr)
	o := blocksOptions{max: 64 << 20}
	fs.StringVar(&o.at, "at", "", "with ARCHIVE URL: the capture nearest `T` (default: the latest)")
	fs.IntVar(&o.level, "level", 0, "partition level to keep (1 = coarsest; 0 = the default, adaptive, or for a capture the level it was archived at)")
	fs.BoolVar(&o.json, "json", false, "print the block tree as JSON (fields listed above)")
	fs.BoolVar(&o.main, "main", false, "print only the page's main text")
	fs.StringVar(&o.htmlOut, "html", "", "also write the page with its kept blocks outlined to `OUT`")
	fs.Var(&o.max, "max", "largest page to read, as `SIZE` after decompression (bytes, or e.g. 64MiB, 500KB)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() != 1 && fs.NArg() != 2:
		fmt.Fprintln(stderr, "blockwarc blocks: want one FILE (or - for standard input), or ARCHIVE and URL")
		fs.Usage()
		return exitUsage
	case o.at != "" && fs.NArg() != 2:
		fmt.Fprintln(stderr, "blockwarc blocks: -at needs ARCHIVE and URL")
		return exitUsage
	case o.json && o.main:
		fmt.Fprintln(stderr, "blockwarc blocks: -json and -main exclude each other")
		return exitUsage
	case o.level < 0:
		fmt.Fprintln(stderr, "blockwarc blocks: -level must be 0 or more")
		return exitUsage
	case o.max <= 0:
		fmt.Fprintln(stderr, "blockwarc blocks: -max must be positive")
		return exitUsage
	}
	if o.at != "" {
		if _, _, err := export.ParsePeriod(o.at); err != nil {
			fmt.Fprintf(stderr, "blockwarc blocks: bad -at %q: %v\n", o.at, err)
			return exitUsage
		}
	}
	if err := blocks(ctx, fs.Args(), o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "blockwarc blocks: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func blocks(ctx context.Context, args []string, o blocksOptions, stdout, stderr io.Writer) error {
	name := args[0]
	if o.htmlOut != "" {
		// Refuse before the work, not after it.
		if fi, err := os.Stat(o.htmlOut); err == nil {
			if fi.IsDir() {
				return fmt.Errorf("write %s: is a directory", o.htmlOut)
			}
			if in, err := os.Stat(name); err == nil && name != "-" && os.SameFile(fi, in) {
				return fmt.Errorf("write %s: is the input page", o.htmlOut)
			}
		}
	}
	var res *partition.Result
	shown := ""
	if len(args) == 2 {
		l, err := archivedPage(args[0], args[1], o)
		if err != nil {
			return err
		}
		res, shown = l.res, l.shown
		switch shown {
		case dedupe.ShownAfresh:
			fmt.Fprintf(stderr, "blockwarc blocks: note: partitioned afresh, not the partition stored for the capture (its payload is stored whole, or -level differs from the archived level)\n")
		case dedupe.ShownStoredSpans:
			fmt.Fprintf(stderr, "blockwarc blocks: note: the stored blocks were cut by an older partition: shown at their spans, named by today's blocks holding them\n")
		}
	} else {
		doc, err := readPage(name, int64(o.max))
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if res, err = partition.Partition(doc, dedupe.PageOptions("", o.level, "")); err != nil {
			return fmt.Errorf("partition %s: %w", name, err)
		}
	}
	var err error
	w := bufio.NewWriter(stdout)
	switch {
	case o.main:
		if t := partition.MainTextWithTitle(res); t != "" {
			fmt.Fprintln(w, t)
		}
	case o.json:
		err = writeBlocksJSON(w, res, shown)
	default:
		writeBlocksTree(w, res)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if o.htmlOut != "" {
		if err := os.WriteFile(o.htmlOut, annotatedHTML(res), 0o666); err != nil {
			return fmt.Errorf("write annotated page: %w", err)
		}
	}
	return nil
}

// archivedPage reads the capture of url nearest to o.at (the latest when
// empty) from the archive at dir, partitioned as diff does.
func archivedPage(dir, url string, o blocksOptions) (*loaded, error) {
	a, err := openArchive(dir, os.Stderr)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	vs, err := pageVersions(a, url)
	if err != nil {
		return nil, err
	}
	i := len(vs) - 1
	if o.at != "" {
		i = nearest(vs, o.at)
	}
	return loadPage(a, partition.NewPartitioner(), vs, i, diffLevel(diffOptions{level: o.level}, vs[i]), nil)
}

// readPage reads at most max bytes of page (after gzip decompression when
// it starts with the gzip magic) from the file name or standard input.
func readPage(name string, max int64) ([]byte, error) {
	var r io.Reader = os.Stdin
	label := "standard input"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("open page: %w", err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("open page %s: is a directory; want an HTML file, or ARCHIVE URL", name)
		}
		r, label = f, name
	}
	br := bufio.NewReader(io.LimitReader(r, max+1))
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read gzip header of %s: %w", label, err)
		}
		doc, err := io.ReadAll(io.LimitReader(zr, max+1))
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) && int64(len(doc)) > 0 {
				return nil, fmt.Errorf("decompress %s: truncated (or longer than -max %d compressed): %w", label, max, err)
			}
			return nil, fmt.Errorf("decompress %s: %w", label, err)
		}
		if int64(len(doc)) > max {
			return nil, fmt.Errorf("read %s: decompresses to more than -max %d bytes (a decompression bomb, or raise -max)", label, max)
		}
		return doc, nil
	}
	doc, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", label, err)
	}
	if int64(len(doc)) > max {
		return nil, fmt.Errorf("read %s: larger than -max %d bytes", label, max)
	}
	return doc, nil
}

// walkBlocks visits every block of the tree in document order, parents
// before children, with its depth in the block tree (1 at the top).
func walkBlocks(bs []*partition.Block, depth int, f func(b *partition.Block, depth int)) {
	for _, b := range bs {
		f(b, depth)
		walkBlocks(b.Children, depth+1, f)
	}
}

func keptSet(res *partition.Result) map[*partition.Block]bool {
	kept := make(map[*partition.Block]bool, len(res.Leaves))
	for _, b := range res.Leaves {
		kept[b] = true
	}
	return kept
}

func writeBlocksTree(w io.Writer, res *partition.Result) {
	kept := keptSet(res)
	walkBlocks(res.Blocks, 1, func(b *partition.Block, depth int) {
		mark := ""
		if kept[b] {
			mark = "*"
		}
		label := string(b.Label)
		if label == "" {
			label = "-"
		}
		fmt.Fprintf(w, "%s%s%s <%s> %s %dB", strings.Repeat("  ", depth-1), b.Path, mark, blockview.OneLine(blockview.BlockTag(b), 80), label, b.End-b.Start)
		if len(b.Topic) > 0 {
			fmt.Fprintf(w, " [%s]", blockview.OneLine(strings.Join(b.Topic, " "), 120))
		}
		fmt.Fprintln(w)
	})
}

// jsonBlock is one block of -json output; the field names are documented
// in the -help text and are stable.
type jsonBlock struct {
	Path          string   `json:"path"`
	Depth         int      `json:"depth"`
	DOMDepth      int      `json:"dom_depth"`
	Level         int      `json:"level"`
	Kept          bool     `json:"kept"`
	Tag           string   `json:"tag"`
	ID            string   `json:"id"`
	Class         string   `json:"class"`
	Start         int      `json:"start"`
	End           int      `json:"end"`
	Bytes         int      `json:"bytes"`
	Label         string   `json:"label"`
	Topic         []string `json:"topic"`
	TextLen       int      `json:"text_len"`
	Words         int      `json:"words"`
	Links         int      `json:"links"`
	LinkTextRatio float64  `json:"link_text_ratio"`
	Images        int      `json:"images"`
	Forms         int      `json:"forms"`
	Inputs        int      `json:"inputs"`
	Headings      int      `json:"headings"`
	Text          string   `json:"text,omitempty"`
}

type jsonPage struct {
	Bytes int `json:"bytes"`
	Kept  int `json:"kept"`
	// Partition (captures of an archive only): "stored", "stored-spans"
	// or "afresh", as diff -json says it (docs/DIFF.md).
	Partition string      `json:"partition,omitempty"`
	Blocks    []jsonBlock `json:"blocks"`
}

func writeBlocksJSON(w io.Writer, res *partition.Result, shown string) error {
	kept := keptSet(res)
	page := jsonPage{Bytes: len(res.Doc), Kept: len(res.Leaves), Partition: shown, Blocks: []jsonBlock{}}
	walkBlocks(res.Blocks, 1, func(b *partition.Block, depth int) {
		f := b.Features
		jb := jsonBlock{
			Path: b.Path, Depth: depth, DOMDepth: b.Depth, Level: b.Level, Kept: kept[b],
			Tag: b.Tag, ID: b.ID, Class: b.Class,
			Start: b.Start, End: b.End, Bytes: b.End - b.Start,
			Label: string(b.Label), Topic: b.Topic,
			TextLen: f.TextLen, Words: f.Words, Links: f.Links, LinkTextRatio: f.LinkTextRatio,
			Images: f.Images, Forms: f.Forms, Inputs: f.Inputs, Headings: f.Headings,
		}
		if jb.Topic == nil {
			jb.Topic = []string{}
		}
		if kept[b] {
			jb.Text = b.Text
		}
		page.Blocks = append(page.Blocks, jb)
	})
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(page)
}

// The annotated copy: each kept block gets data-bw-* attributes on its
// start tag (or, when it does not begin with its own start tag, a <span>
// around it, shown as a block so the outline surrounds the whole run),
// and one <style> element draws them; table parts get no caption, which
// would shift their cells. Inserting text into the
// original bytes, rather than re-serialising a DOM, shows exactly the
// spans the partition cut.
const annotateCSS = `<style>/* inserted by blockwarc blocks -html */
[data-bw-block]{outline:2px solid rgba(200,30,30,.9)!important;outline-offset:-1px}
[data-bw-block]::before{content:attr(data-bw-caption);display:block;font:11px/1.3 monospace!important;color:#fff!important;background:rgba(200,30,30,.9)!important;padding:0 3px;margin:0;text-align:left;text-indent:0;white-space:pre-wrap;letter-spacing:0;text-transform:none;float:none;position:static;width:auto;height:auto}
span[data-bw-block]{display:block}
table[data-bw-block]::before,thead[data-bw-block]::before,tbody[data-bw-block]::before,tfoot[data-bw-block]::before,tr[data-bw-block]::before,colgroup[data-bw-block]::before,select[data-bw-block]::before{content:none}
[data-bw-label=title]{outline-color:#8e24aa!important}[data-bw-label=title]::before{background:#8e24aa!important}
[data-bw-label=navigation]{outline-color:#1e63c8!important}[data-bw-label=navigation]::before{background:#1e63c8!important}
[data-bw-label=related-links]{outline-color:#00838f!important}[data-bw-label=related-links]::before{background:#00838f!important}
[data-bw-label=footer]{outline-color:#616161!important}[data-bw-label=footer]::before{background:#616161!important}
[data-bw-label=advertisement]{outline-color:#ef6c00!important}[data-bw-label=advertisement]::before{background:#ef6c00!important}
[data-bw-label=form]{outline-color:#2e7d32!important}[data-bw-label=form]::before{background:#2e7d32!important}
[data-bw-label=media]{outline-color:#6d4c41!important}[data-bw-label=media]::before{background:#6d4c41!important}
[data-bw-label=other]{outline-color:#9e9d24!important}[data-bw-label=other]::before{background:#9e9d24!important}
[data-bw-label=dialog]{outline-color:#c2185b!important}[data-bw-label=dialog]::before{background:#c2185b!important}
[data-bw-label=consent]{outline-color:#5d4037!important}[data-bw-label=consent]::before{background:#5d4037!important}
</style>`

type insertion struct {
	at   int
	text string
}

func annotatedHTML(res *partition.Result) []byte {
	doc := res.Doc
	var ins []insertion
	ins = append(ins, insertion{blockview.StyleOffset(res), annotateCSS})
	for i, b := range res.Leaves {
		caption := b.Path
		if b.Label != "" {
			caption += " " + string(b.Label)
		}
		if len(b.Topic) > 0 {
			caption += ": " + blockview.OneLine(strings.Join(b.Topic, " "), 80)
		}
		attrs := ` data-bw-block="` + strconv.Itoa(i+1) + `" data-bw-path="` + blockview.AttrEscape(b.Path) +
			`" data-bw-label="` + blockview.AttrEscape(string(b.Label)) + `" data-bw-caption="` + blockview.AttrEscape(caption) + `"`
		if at, ok := blockview.StartTagNameEnd(doc, b); ok {
			ins = append(ins, insertion{at, attrs})
			continue
		}
		ins = append(ins, insertion{b.Start, "<span" + attrs + ">"}, insertion{b.End, "</span>" + blockview.WrapEnd})
	}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].at < ins[j].at })
	n := len(doc)
	for _, x := range ins {
		n += len(x.text)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, x := range ins {
		out = append(out, doc[at:x.at]...)
		out = append(out, x.text...)
		at = x.at
	}
	return append(out, doc[at:]...)
}

// byteSize is a flag value in the CLI's one size syntax (ingestflags.ParseSize:
// plain bytes or a k/M/G, KiB/MiB/GiB or KB/MB/GB suffix).
type byteSize int64

func (s *byteSize) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *byteSize) Set(v string) error {
	n, err := ingestflags.ParseSize(v)
	if err != nil {
		return fmt.Errorf("bad size %q (want e.g. 1048576, 500KB, 64MiB)", v)
	}
	*s = byteSize(n)
	return nil
}
