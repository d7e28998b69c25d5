package export

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/internal/countio"
	"github.com/blockwarc/blockwarc/warcio"
)

// WACZ (Web Archive Collection Zipped, specification 1.1.1) is the ZIP
// package replay tools such as ReplayWeb.page open directly:
//
//	archive/data.warc.gz     the records, as WriteWARC writes them (stored, not compressed again)
//	indexes/index.cdx        their CDXJ index (IndexCDXJ), offsets into archive/data.warc.gz
//	pages/pages.jsonl        one line per HTML page capture (2xx response)
//	datapackage.json         every file above with its size and SHA-256
//	datapackage-digest.json  the SHA-256 of datapackage.json
const (
	WACZVersion  = "1.1.1"
	waczWARCName = "data.warc.gz"
	waczWARC     = "archive/" + waczWARCName
	waczIndex    = "indexes/index.cdx"
	waczPages    = "pages/pages.jsonl"
)

// WACZOptions shape WriteWACZ.
type WACZOptions struct {
	WARC     WARCOptions // which records (URL prefix, dates, Clean)
	Title    string      // the package's title
	Software string      // what wrote it, for datapackage.json
	// Created is the package's creation time (datapackage.json and the
	// ZIP entries' times); the zero time means now.
	Created time.Time
	// TempDir holds the WARC and the index while the package is built
	// ("" = os.TempDir()); MemLimit bounds the index's sort (0: 256 MiB).
	TempDir  string
	MemLimit int64
}

// WACZStats counts what WriteWACZ wrote.
type WACZStats struct {
	WARC    WARCStats
	Indexed int64 // CDXJ lines
	Pages   int64 // pages.jsonl lines after the header
	Bytes   int64 // bytes of the package
}

// WACZResource is one file of a WACZ as datapackage.json lists it.
type WACZResource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"` // "sha256:" and the hex digest
	Bytes int64  `json:"bytes"`
}

// WACZPackage is datapackage.json.
type WACZPackage struct {
	Profile     string         `json:"profile"`
	WACZVersion string         `json:"wacz_version"`
	Title       string         `json:"title,omitempty"`
	Software    string         `json:"software,omitempty"`
	Created     string         `json:"created"`
	MainPageURL string         `json:"mainPageURL,omitempty"`
	MainPageTS  string         `json:"mainPageDate,omitempty"`
	Resources   []WACZResource `json:"resources"`
}

// waczTempPrefix names WriteWACZ's temporary directory: not the
// "blockwarc-wacz-" of the unlocked ones of blockwarc before it, which a
// live export of that version may still be using.
const waczTempPrefix = "blockwarc-wacz-run-"

// WriteWACZ writes the selected records of a as a WACZ package to w. The
// WARC is written first to a temporary file (WriteWARC), then indexed
// from that file (IndexCDXJ, the index of blockwarc index, so offsets are
// those of the WARC in the package); memory is bounded as theirs is.
func WriteWACZ(ctx context.Context, w io.Writer, a *dedupe.Archive, opts WACZOptions) (WACZStats, error) {
	var st WACZStats
	created := opts.Created
	if created.IsZero() {
		created = time.Now()
	}
	created = created.UTC().Truncate(time.Second)

	// The WARC, the index and the pages are built in a directory of
	// their own: the WARC under its name in the package, which the index
	// gives as each line's filename.
	// Locked while in use: what a killed export left there (a WARC of
	// the whole export) is told from a live one's and removed (MakeLockedTemp).
	tmp, release, err := warcio.MakeLockedTemp(opts.TempDir, waczTempPrefix)
	if err != nil {
		return st, fmt.Errorf("write WACZ: %w", err)
	}
	defer release()
	create := func(name string) (*os.File, error) {
		f, err := os.Create(filepath.Join(tmp, name))
		if err != nil {
			return nil, fmt.Errorf("write WACZ: %w", err)
		}
		return f, nil
	}
	warcFile, err := create(waczWARCName)
	if err != nil {
		return st, err
	}
	defer warcFile.Close()
	bw := bufio.NewWriterSize(warcFile, 256<<10)
	if st.WARC, err = WriteWARC(ctx, bw, a, opts.WARC); err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write WACZ: %w", err)
	}

	indexFile, err := create("index.cdx")
	if err != nil {
		return st, err
	}
	defer indexFile.Close()
	pagesFile, err := create("pages.jsonl")
	if err != nil {
		return st, err
	}
	defer pagesFile.Close()
	pw := bufio.NewWriter(pagesFile)
	if _, err := pw.WriteString(`{"format":"json-pages-1.0","id":"pages","title":"All Pages"}` + "\n"); err != nil {
		return st, fmt.Errorf("write WACZ pages: %w", err)
	}
	var main struct{ url, ts string }
	mem := opts.MemLimit
	if mem <= 0 {
		mem = 256 << 20
	}
	lines := &lineCounter{w: indexFile}
	_, err = IndexCDXJ(ctx, []string{warcFile.Name()}, warcio.WalkOptions{
		MemLimit: mem, TempDir: tmp, Reader: warcio.Options{Policy: warcio.PolicyFail},
	}, lines, func(e *CDXJEntry) error {
		if !isPage(e) {
			return nil
		}
		ts, err := time.Parse("20060102150405", e.Timestamp)
		if err != nil {
			return nil
		}
		st.Pages++
		b, _ := json.Marshal(struct {
			ID  string `json:"id"`
			URL string `json:"url"`
			TS  string `json:"ts"`
		}{fmt.Sprintf("%s/%s", e.Timestamp, e.URL), e.URL, ts.Format(time.RFC3339)})
		if main.url == "" {
			main.url, main.ts = e.URL, ts.Format(time.RFC3339)
		}
		_, err = pw.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return st, fmt.Errorf("index WACZ: %w", err)
	}
	st.Indexed = lines.n
	if err := pw.Flush(); err != nil {
		return st, fmt.Errorf("write WACZ pages: %w", err)
	}

	// The package: the WARC stored as it is (it is gzip already, and a
	// replay tool reads its records by offset), the rest deflated.
	cw := &countio.Writer{W: w}
	zw := zip.NewWriter(cw)
	pkg := WACZPackage{Profile: "data-package", WACZVersion: WACZVersion, Title: opts.Title, Software: opts.Software,
		Created: created.Format(time.RFC3339), MainPageURL: main.url, MainPageTS: main.ts}
	for _, f := range []struct {
		path   string
		file   *os.File
		method uint16
	}{
		{waczWARC, warcFile, zip.Store},
		{waczIndex, indexFile, zip.Deflate},
		{waczPages, pagesFile, zip.Deflate},
	} {
		if _, err := f.file.Seek(0, io.SeekStart); err != nil {
			return st, fmt.Errorf("write WACZ: %w", err)
		}
		r, err := addZipEntry(zw, f.path, f.method, created, f.file)
		if err != nil {
			return st, err
		}
		pkg.Resources = append(pkg.Resources, r)
	}
	dp, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return st, fmt.Errorf("write WACZ: %w", err)
	}
	dr, err := addZipEntry(zw, "datapackage.json", zip.Deflate, created, strings.NewReader(string(dp)+"\n"))
	if err != nil {
		return st, err
	}
	digest, _ := json.MarshalIndent(struct {
		Path string `json:"path"`
		Hash string `json:"hash"`
	}{dr.Path, dr.Hash}, "", "  ")
	if _, err := addZipEntry(zw, "datapackage-digest.json", zip.Deflate, created, strings.NewReader(string(digest)+"\n")); err != nil {
		return st, err
	}
	if err := zw.Close(); err != nil {
		return st, fmt.Errorf("write WACZ: %w", err)
	}
	st.Bytes = cw.N
	return st, nil
}

// isPage says whether a CDXJ entry is a page for pages.jsonl: a 2xx
// HTML response.
func isPage(e *CDXJEntry) bool {
	return (e.Mime == "text/html" || e.Mime == "application/xhtml+xml") && len(e.Status) == 3 && e.Status[0] == '2'
}

// addZipEntry writes r as the entry path of zw, hashing it.
func addZipEntry(zw *zip.Writer, path string, method uint16, mod time.Time, r io.Reader) (WACZResource, error) {
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: path, Method: method, Modified: mod})
	if err != nil {
		return WACZResource{}, fmt.Errorf("write WACZ %s: %w", path, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(fw, h), r)
	if err != nil {
		return WACZResource{}, fmt.Errorf("write WACZ %s: %w", path, err)
	}
	return WACZResource{Name: pathBase(path), Path: path, Hash: hashString(h), Bytes: n}, nil
}

func hashString(h hash.Hash) string { return "sha256:" + hex.EncodeToString(h.Sum(nil)) }

func pathBase(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// lineCounter counts the lines written through it.
type lineCounter struct {
	w io.Writer
	n int64
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.n += int64(bytes.Count(p, []byte{'\n'}))
	return l.w.Write(p)
}
