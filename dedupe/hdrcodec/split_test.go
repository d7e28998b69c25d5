package hdrcodec

import (
	"bytes"
	"compress/bzip2"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// sample is one WARC record cut out of a file by the test-only splitter:
// its header blocks and what a caller would know at restore time.
type sample struct {
	file     string
	seq      int    // position in the file
	warcHdr  []byte // version line, fields, blank line
	typ, uri string
	date     string
	recordID string
	concTo   string
	infoID   string
	block    []byte
	httpHdr  []byte // nil when the block is not application/http
}

// readAll returns the decompressed bytes of a WARC file, as far as they
// decompress (corrupt files give what precedes the damage).
func readAll(t testing.TB, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b:
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil
		}
		out, _ := io.ReadAll(zr)
		return out
	case len(raw) > 3 && string(raw[:3]) == "BZh":
		out, _ := io.ReadAll(bzip2.NewReader(bytes.NewReader(raw)))
		return out
	}
	return raw
}

// headerEnd returns the length of the header block at the start of b: up to
// and including the first empty line (CRLF or LF), or len(b) if none.
func headerEnd(b []byte) int {
	end := len(b)
	if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
		end = i + 4
	}
	if i := bytes.Index(b, []byte("\n\n")); i >= 0 && i+2 < end {
		end = i + 2
	}
	return end
}

func fieldOf(hdr []byte, name string) string {
	for _, l := range strings.Split(string(hdr), "\n") {
		k := strings.IndexByte(l, ':')
		if k > 0 && strings.EqualFold(l[:k], name) {
			return strings.TrimSpace(l[k+1:])
		}
	}
	return ""
}

// splitWARC cuts the records out of a decompressed WARC stream; it stops at
// the first record it cannot frame.
func splitWARC(file string, data []byte) []sample {
	var out []sample
	pos := 0
	for pos < len(data) {
		if !bytes.HasPrefix(data[pos:], []byte("WARC/")) {
			i := bytes.Index(data[pos:], []byte("\nWARC/"))
			if i < 0 {
				break
			}
			pos += i + 1
		}
		rest := data[pos:]
		he := headerEnd(rest)
		hdr := rest[:he]
		s := sample{
			file: file, seq: len(out), warcHdr: hdr,
			typ:      fieldOf(hdr, "WARC-Type"),
			uri:      strings.Trim(fieldOf(hdr, "WARC-Target-URI"), "<>"),
			date:     fieldOf(hdr, "WARC-Date"),
			recordID: fieldOf(hdr, "WARC-Record-ID"),
			concTo:   fieldOf(hdr, "WARC-Concurrent-To"),
			infoID:   fieldOf(hdr, "WARC-Warcinfo-ID"),
		}
		cl, err := strconv.Atoi(fieldOf(hdr, "Content-Length"))
		if err != nil || cl < 0 {
			out = append(out, s)
			break
		}
		cl = min(cl, len(rest)-he)
		s.block = rest[he : he+cl]
		if strings.Contains(strings.ToLower(fieldOf(hdr, "Content-Type")), "application/http") {
			s.httpHdr = s.block[:headerEnd(s.block)]
		}
		out = append(out, s)
		pos += he + cl
		for pos < len(data) && (data[pos] == '\r' || data[pos] == '\n') {
			pos++
		}
	}
	return out
}

// loadDir reads every WARC file in dir whose name passes keep.
func loadDir(t testing.TB, dir string, keep func(string) bool) []sample {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var all []sample
	for _, e := range ents {
		if e.IsDir() || !keep(e.Name()) {
			continue
		}
		all = append(all, splitWARC(e.Name(), readAll(t, filepath.Join(dir, e.Name())))...)
	}
	return all
}

// withPrev is a sample and its predecessors for the WARC and HTTP headers.
type withPrev struct {
	*sample
	prevWARC, prevHTTP []byte
}

// chain orders samples by URL then time (then file order) and gives each
// the previous record of the same URL and type; warcinfo, metadata and
// resource records with no such record (all records, with anyType) take the
// previous one of their type in capture order.
func chain(all []sample) []withPrev { return chainOpt(all, false) }

func chainOpt(all []sample, anyType bool) []withPrev {
	sort.SliceStable(all, func(i, j int) bool {
		a, b := &all[i], &all[j]
		if a.uri != b.uri {
			return a.uri < b.uri
		}
		if a.date != b.date {
			return a.date < b.date
		}
		if a.file != b.file {
			return a.file < b.file
		}
		return a.seq < b.seq
	})
	// Type-only fallbacks must follow capture order, not URL order.
	byTime := make([]int, len(all))
	for i := range byTime {
		byTime[i] = i
	}
	sort.SliceStable(byTime, func(i, j int) bool {
		a, b := &all[byTime[i]], &all[byTime[j]]
		if a.date != b.date {
			return a.date < b.date
		}
		if a.file != b.file {
			return a.file < b.file
		}
		return a.seq < b.seq
	})
	prevOfType := make(map[int]int, len(all)) // sample index -> previous same-type sample in time
	lastOfType := map[string]int{}
	for _, i := range byTime {
		if j, ok := lastOfType[all[i].typ]; ok {
			prevOfType[i] = j
		}
		lastOfType[all[i].typ] = i
	}
	out := make([]withPrev, len(all))
	last := map[string]int{}
	for i := range all {
		s := &all[i]
		out[i].sample = s
		key := s.typ + "\x00" + s.uri
		j, ok := last[key]
		if !ok && (anyType || s.typ == "warcinfo" || s.typ == "metadata" || s.typ == "resource") {
			j, ok = prevOfType[i]
		}
		if ok {
			out[i].prevWARC = all[j].warcHdr
			out[i].prevHTTP = all[j].httpHdr
		}
		last[key] = i
	}
	return out
}
