package report

import (
	"bufio"
	"fmt"
	"html"

	"github.com/blockwarc/blockwarc/dedupe"
)

// InputRestore says how one input file comes back out of the archive
// (export-warc -source): its decompressed stream byte for byte, and the
// file as given (compressed) bit for bit.
type InputRestore struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	// Decompressed: "exact" (verify checks the stream's SHA-256) or
	// "unknown" (ingested before the stream was recorded).
	Decompressed string `json:"decompressed"`
	// Compressed: "exact" (a gzip file that export-warc -source -original
	// rebuilds bit for bit; verify checks the file's SHA-256),
	// "uncompressed" (the file is its stream), "no" (CompressedWhy says
	// why) or "unknown".
	Compressed    string `json:"compressed"`
	CompressedWhy string `json:"compressed_why"`
	// NotProven: a compressed file not examined yet ("no" until 'blockwarc
	// prove' proves it from the original).
	NotProven bool `json:"not_proven,omitempty"`
}

// Says is the file's line in the text and the page.
func (f InputRestore) Says() string {
	switch {
	case f.Decompressed == "exact" && f.Compressed == "exact":
		return "restores exactly (compressed / decompressed)"
	case f.Decompressed == "exact" && f.Compressed == "uncompressed":
		return "restores exactly (not compressed: the stream is the file)"
	case f.Decompressed == "exact" && f.Compressed == "no":
		return "restores exactly (decompressed); compressed: not bit-exact (" + f.CompressedWhy + ")"
	case f.Decompressed == "exact":
		return "restores exactly (decompressed); compressed: unknown"
	}
	return "unknown (ingested before blockwarc recorded input streams)"
}

// Inputs counts the input files by how they restore; Files lists each.
type Inputs struct {
	Decompressed int64          `json:"restore_decompressed"` // files whose stream restores exactly
	Compressed   int64          `json:"restore_compressed"`   // gzip files that restore bit-exact as given
	Uncompressed int64          `json:"uncompressed"`         // files not compressed (restore as given: the stream)
	NotProven    int64          `json:"not_proven"`           // compressed files not examined yet ('blockwarc prove')
	Files        []InputRestore `json:"files"`
}

func inputRestore(f dedupe.InputFile) InputRestore {
	r := InputRestore{Name: f.Name, Size: f.Size, Decompressed: "unknown", Compressed: "unknown"}
	if f.Rebuildable {
		r.Decompressed = "exact"
	}
	switch {
	case f.OriginalCompressed():
		r.Compressed = "exact"
	case f.OriginalExact():
		r.Compressed = "uncompressed"
	case f.OriginalWhy != 0: // 0: not recorded (before catalog version 6)
		r.Compressed, r.CompressedWhy, r.NotProven = "no", f.OriginalReason(), f.NotProven()
	}
	return r
}

func (in *Inputs) add(f dedupe.InputFile) {
	r := inputRestore(f)
	if r.Decompressed == "exact" {
		in.Decompressed++
	}
	switch r.Compressed {
	case "exact":
		in.Compressed++
	case "uncompressed":
		in.Uncompressed++
	}
	if r.NotProven {
		in.NotProven++
	}
	in.Files = append(in.Files, r)
}

// maxInputLines bounds the files the text lists: those that do not
// restore exactly both ways (the JSON and the page list every file).
const maxInputLines = 30

func writeInputsText(bw *bufio.Writer, r *Report) {
	in := r.Inputs
	fmt.Fprintf(bw, "\nRestoring the input files (export-warc -source)\n")
	t := &table{align: "lrl"}
	t.row("decompressed, byte for byte", fmt.Sprintf("%s of %s", Thousands(in.Decompressed), Thousands(r.InputFiles)), "")
	t.row("compressed, bit-exact", fmt.Sprintf("%s of %s", Thousands(in.Compressed), Thousands(r.InputFiles-in.Uncompressed)), "as given (-original)")
	if in.NotProven > 0 {
		t.row("not proven yet", Thousands(in.NotProven), "'blockwarc prove ARCHIVE ORIGINALS...' proves them")
	}
	if in.Uncompressed > 0 {
		t.row("not compressed", Thousands(in.Uncompressed), "the stream is the file")
	}
	t.write(bw)
	t = &table{align: "ll"}
	listed := 0
	for _, f := range in.Files {
		// Listed: what does not restore both ways for another reason
		// than a proof not made yet, which the line above counts.
		if f.Decompressed == "exact" && (f.Compressed == "exact" || f.Compressed == "uncompressed" || f.NotProven) {
			continue
		}
		if listed++; listed <= maxInputLines {
			t.row("  "+f.Name, f.Says())
		}
	}
	t.write(bw)
	if listed > maxInputLines {
		fmt.Fprintf(bw, "  … %d more (report -json lists every file)\n", listed-maxInputLines)
	}
	if listed < len(in.Files) {
		other := "every other file"
		if listed == 0 {
			other = "every file"
		}
		if in.NotProven > 0 {
			fmt.Fprintf(bw, "  %s restores exactly (decompressed; compressed once proven, or not compressed)\n", other)
		} else {
			fmt.Fprintf(bw, "  %s restores exactly (compressed / decompressed, or is not compressed)\n", other)
		}
	}
}

func writeInputsHTML(bw *bufio.Writer, r *Report) {
	e := html.EscapeString
	in := r.Inputs
	fmt.Fprintf(bw, "<h2>Restoring the input files</h2>\n<p>%s of %s input files restore exactly decompressed (byte for byte), %s of %s compressed ones bit-exact, as given (<code>export-warc -source NAME -original</code>)",
		Thousands(in.Decompressed), Thousands(r.InputFiles), Thousands(in.Compressed), Thousands(r.InputFiles-in.Uncompressed))
	if in.NotProven > 0 {
		fmt.Fprintf(bw, "; %s not proven yet (<code>blockwarc prove ARCHIVE ORIGINALS...</code> proves them)", Thousands(in.NotProven))
	}
	fmt.Fprintf(bw, ".</p>\n")
	fmt.Fprintf(bw, "<details><summary>every input file</summary><table><tr><th>file</th><th>restores</th></tr>")
	for _, f := range in.Files {
		fmt.Fprintf(bw, "<tr><td>%s</td><td>%s</td></tr>", e(f.Name), e(f.Says()))
	}
	fmt.Fprintf(bw, "</table></details>\n")
}
