package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/export"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

// waczCheck is what testdata/npm/wacz-check.mjs says of a WACZ.
type waczCheck struct {
	WACZVersion string `json:"wacz_version"`
	Entries     map[string]struct {
		Method int   `json:"method"`
		Bytes  int64 `json:"bytes"`
	} `json:"entries"`
	Resources []struct {
		Path string `json:"path"`
		OK   bool   `json:"ok"`
	} `json:"resources"`
	DigestOK bool `json:"digestOK"`
	WARCs    map[string][]struct {
		Offset int64  `json:"offset"`
		Type   string `json:"type"`
		URI    string `json:"uri"`
	} `json:"warcs"`
	Index struct {
		Lines   int      `json:"lines"`
		Matched int      `json:"matched"`
		Bad     []string `json:"bad"`
	} `json:"index"`
	PagesHeader map[string]string `json:"pagesHeader"`
	Pages       []struct {
		URL string `json:"url"`
		TS  string `json:"ts"`
	} `json:"pages"`
}

// readWACZ runs the independent reader (yauzl, warcio.js, node's
// crypto) on the WACZ at path.
func readWACZ(t *testing.T, path string) waczCheck {
	t.Helper()
	warcioJS(t) // node and the npm packages, or skip (fail under CI)
	dir := filepath.Join(sharedtest.RepoRoot(t), "testdata", "npm")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "yauzl")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("yauzl missing (CI=true): run `make npm`")
		}
		t.Skip("yauzl missing: run `make npm`")
	}
	cmd := exec.Command("node", filepath.Join(dir, "wacz-check.mjs"), path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wacz-check.mjs: %v: %s", err, stderr.String())
	}
	var c waczCheck
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("wacz-check.mjs output: %v: %s", err, out)
	}
	return c
}

// TestExportWACZ: export-wacz writes a WACZ 1.1.1 package whose
// datapackage.json lists every file with its size and SHA-256 (checked
// here and by an independent reader, which also checks the digest of
// datapackage.json), whose WARC is export-warc's output stored
// uncompressed in the ZIP and read whole by warcio.js, whose index is
// blockwarc index of that WARC with every line pointing at its record,
// and whose pages are the HTML captures. A package with one byte of its
// WARC changed fails the reader's hash check.
func TestExportWACZ(t *testing.T) {
	root := t.TempDir()
	samples := filepath.Join("..", "..", "testdata", "samples")
	bwa := filepath.Join(root, "a.bwa")
	mustRun(t, "ingest", "-tables=false", bwa,
		filepath.Join(samples, "ota-lovescout24-20220120143355.warc.gz"),
		filepath.Join(samples, "ota-lovescout24-20220125183141.warc.gz"),
		filepath.Join(samples, "ota-lovescout24-20240501003256.warc.gz"))
	wacz := filepath.Join(root, "a.wacz")
	code, _, stderr := runCmd(t, "export-wacz", "-o", wacz, bwa)
	if code != exitOK {
		t.Fatalf("export-wacz: exit %d: %s", code, stderr)
	}
	warc := filepath.Join(root, "data.warc.gz")
	mustRun(t, "export-warc", "-o", warc, bwa)
	wantWARC, _ := os.ReadFile(warc)
	wantIndex := mustRun(t, "index", warc)

	zr, err := zip.OpenReader(wacz)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		names = append(names, f.Name)
		if strings.HasPrefix(f.Name, "archive/") && f.Method != zip.Store {
			t.Errorf("%s: method %d, want stored", f.Name, f.Method)
		}
	}
	if strings.Join(names, " ") != "archive/data.warc.gz indexes/index.cdx pages/pages.jsonl datapackage.json datapackage-digest.json" {
		t.Fatalf("entries: %v", names)
	}
	if !bytes.Equal(got["archive/data.warc.gz"], wantWARC) {
		t.Errorf("archive/data.warc.gz: %d bytes, not export-warc's %d", len(got["archive/data.warc.gz"]), len(wantWARC))
	}
	if string(got["indexes/index.cdx"]) != wantIndex || wantIndex == "" {
		t.Errorf("indexes/index.cdx is not blockwarc index of the WARC:\n%s\nwant\n%s", got["indexes/index.cdx"], wantIndex)
	}
	var pkg export.WACZPackage
	if err := json.Unmarshal(got["datapackage.json"], &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.WACZVersion != "1.1.1" || pkg.Profile != "data-package" || len(pkg.Resources) != 3 || pkg.Title != "a" {
		t.Fatalf("datapackage.json: %+v", pkg)
	}
	for _, r := range pkg.Resources {
		sum := sha256.Sum256(got[r.Path])
		if r.Hash != "sha256:"+hex.EncodeToString(sum[:]) || r.Bytes != int64(len(got[r.Path])) {
			t.Errorf("datapackage.json lists %s as %s, %d bytes; it has %x, %d bytes", r.Path, r.Hash, r.Bytes, sum, len(got[r.Path]))
		}
	}

	c := readWACZ(t, wacz)
	if c.WACZVersion != "1.1.1" || !c.DigestOK || len(c.Resources) != 3 {
		t.Fatalf("reader: %+v", c)
	}
	for _, r := range c.Resources {
		if !r.OK {
			t.Errorf("reader: %s does not have the size and SHA-256 listed", r.Path)
		}
	}
	recs := c.WARCs["archive/data.warc.gz"]
	if n := strings.Count(string(wantIndex), "\n"); len(recs) < n || len(recs) < 20 {
		t.Errorf("warcio.js reads %d records of the WARC (index: %d lines)", len(recs), n)
	}
	if c.Index.Lines == 0 || c.Index.Matched != c.Index.Lines {
		t.Errorf("reader: %d of %d index lines point at their record: %v", c.Index.Matched, c.Index.Lines, c.Index.Bad)
	}
	if c.PagesHeader["format"] != "json-pages-1.0" || len(c.Pages) == 0 {
		t.Fatalf("pages: %v, %d pages", c.PagesHeader, len(c.Pages))
	}
	for _, p := range c.Pages {
		ts := strings.NewReplacer("-", "", ":", "", "T", "", "Z", "").Replace(p.TS)
		if !strings.Contains(wantIndex, " "+ts+` {"url":"`+p.URL+`","mime":"text/html","status":"200"`) {
			t.Errorf("page %s at %s is not an HTML capture of the index", p.URL, p.TS)
		}
	}

	// One byte of the WARC changed: the reader says its hash is wrong.
	bad := filepath.Join(root, "bad.wacz")
	f, err := os.Create(bad)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range names {
		b := got[name]
		method := zip.Deflate
		if name == "archive/data.warc.gz" {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 1
			method = zip.Store
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		w.Write(b)
	}
	zw.Close()
	f.Close()
	c = readWACZ(t, bad)
	if c.Resources[0].OK || !c.Resources[1].OK {
		t.Errorf("reader of a changed WARC: %+v", c.Resources)
	}
}

// TestExportWACZKilledTemp: an export-wacz killed (kill -9) left its
// working directory in -tmp, a WARC of the whole export; the next
// export-wacz there removes it.
func TestExportWACZKilledTemp(t *testing.T) {
	root, tmp := t.TempDir(), t.TempDir()
	bwa := filepath.Join(root, "a.bwa")
	mustRun(t, "ingest", "-tables=false", bwa, filepath.Join("..", "..", "testdata", "samples", "ota-lovescout24-20220120143355.warc.gz"))
	stale := filepath.Join(tmp, "blockwarc-wacz-run-123")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "data.warc.gz"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd(t, "export-wacz", "-tmp", tmp, "-o", filepath.Join(root, "a.wacz"), bwa); code != exitOK {
		t.Fatalf("export-wacz: exit %d: %s", code, stderr)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("-tmp holds %d entries after the export (%s first): a killed export's are not removed", len(ents), ents[0].Name())
	}
}
