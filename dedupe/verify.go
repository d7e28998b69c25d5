package dedupe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/zlibenc"
	"github.com/blockwarc/blockwarc/warcio"
)

// VerifyStats count what Verify checked.
type VerifyStats struct {
	Objects int64 // objects whose plaintext matched their id
	Records int64 // records restored and checked
	Digests int64 // WARC-Block-Digest / WARC-Payload-Digest values checked again
	Gaps    int64 // gap pieces (bytes between records) restored and checked
	// Files counts the input files rebuilt whole (records and gaps in
	// file order) and checked against the SHA-256 of their decompressed
	// stream recorded at ingest; FilesUnknown those the archive cannot
	// check so (ingested before catalog version 5, or not Rebuildable).
	Files, FilesUnknown int64
	// FilesOriginal counts the input files rebuilt as given (compressed,
	// export-warc -source -original) and checked against their SHA-256;
	// FilesOriginalUnchecked those that restore so but could not be
	// checked by this build (no zlib: built without cgo).
	FilesOriginal, FilesOriginalUnchecked int64
	Problems                              int64 // failures reported
	// Lost lists, in user terms, the captures that did not restore (a
	// capture checked twice, alone and in its file's pass, is listed
	// once); Corrected the files whose damage parity corrected.
	Lost      []LostCapture
	Corrected []string
	// FileTableLost: a part of the input-file table does not read
	// (repair rebuilds it from the originals).
	FileTableLost bool
	// Inputs says, per input file of the table, what this pass proved
	// of it, in table order.
	Inputs []InputCheck
}

// InputCheck is what Verify proved of one input file, now.
type InputCheck struct {
	File InputFile
	// Stream: the file's decompressed stream was rebuilt and equals the
	// one recorded at ingest (length and SHA-256).
	Stream bool
	// Original: the file as given (compressed) was rebuilt and SHA256,
	// the SHA-256 of the bytes rebuilt, equals the file's recorded at
	// ingest; an uncompressed file is its stream.
	Original bool
	SHA256   [32]byte
	// Why says, when not Original, why not.
	Why string
}

// LostCapture names a capture that does not restore as ingested: what a
// user needs to find it again in the original inputs.
type LostCapture struct {
	URL    string    // WARC-Target-URI ("" for records without one)
	Date   time.Time // WARC-Date
	Type   string    // WARC-Type ("" for bytes between records)
	File   string    // input file as given to ingest
	Offset int64     // offset of the record in File
	Err    error
}

func (l LostCapture) String() string {
	what := l.Type + " " + l.URL
	if l.Type == "" && l.URL == "" {
		what = "bytes between records"
	}
	date := "no date"
	if !l.Date.IsZero() {
		date = l.Date.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("%s captured %s, from %s at offset %d", what, date, l.File, l.Offset)
}

// Problem names one failure Verify found.
type Problem struct {
	What string // "object <id>", or "record <file> at <offset>"
	Err  error
}

func (p Problem) Error() string { return p.What + ": " + p.Err.Error() }

// ErrDigest says a restored record does not match a digest it declares.
var ErrDigest = errors.New("digest mismatch")

// Verify checks the whole archive: every object against its id and every
// frame checksum (pack.Store.Verify), then restores every record and gap
// of the catalog, checks its CRC-32C and, where the input record's
// WARC-Block-Digest / WARC-Payload-Digest held at ingest, checks them
// again. The versions of a rebuildable input file are restored once, in
// file order, and their concatenation is checked against the file's
// stream SHA-256 as well; the others in catalog order. report is called
// with every failure; the error return is for failures that stop the
// walk (an unreadable catalog root).
func (a *Archive) Verify(report func(Problem)) (VerifyStats, error) {
	return a.VerifyWith(VerifyOptions{}, report)
}

// VerifyOptions are what a caller may add to Verify.
type VerifyOptions struct {
	// Progress, when set, is called after each record or gap is checked
	// with how many have been (their total is the sum of Records and Gaps
	// of the archive's Files). The objects are checked before the first.
	Progress func(checked int64)
	// Objects, when set, is called as the objects are checked (before
	// the records), with how many of total have been.
	Objects func(checked, total int64)
}

// VerifyWith is Verify with options.
func (a *Archive) VerifyWith(opts VerifyOptions, report func(Problem)) (VerifyStats, error) {
	var st VerifyStats
	fail := func(p Problem) {
		st.Problems++
		report(p)
	}
	// checkOne counts v and checks its restore (p, or the error).
	type lostKey struct {
		file      string
		off, skip int64
	}
	lostSeen := make(map[lostKey]bool)
	checkOne := func(v *Version, p *Parts, err error) {
		if v.Gap {
			st.Gaps++
		} else {
			st.Records++
		}
		if opts.Progress != nil {
			opts.Progress(st.Gaps + st.Records)
		}
		if err == nil {
			var n int64
			n, err = checkDigests(v, p)
			st.Digests += n
		}
		if err != nil {
			fail(Problem{What: fmt.Sprintf("record %s at %d (%s %s)", v.File, v.Offset, v.Type, v.TargetURI), Err: err})
			k := lostKey{v.File, v.Offset, v.Skip}
			if !lostSeen[k] {
				lostSeen[k] = true
				st.Lost = append(st.Lost, LostCapture{URL: v.TargetURI, Date: v.Date, Type: v.Type, File: v.File, Offset: v.Offset, Err: err})
			}
		}
	}
	// A union of shards (Join) is checked part by part, then its input
	// files whole (their records come from several parts).
	ms, err := a.members()
	if err != nil {
		return st, err
	}
	if err := a.loadFiles(); err != nil {
		// The captures do not depend on it: they are still checked, and
		// the input files the table still lists.
		fail(Problem{What: "input-file table", Err: err})
		st.FileTableLost = true
	}
	var objects, objectsChecked int64
	if opts.Objects != nil {
		for _, m := range ms {
			n, err := m.store.IndexedObjects()
			if err != nil {
				return st, fmt.Errorf("verify objects: %w", err)
			}
			objects += n
		}
	}
	for _, m := range ms {
		where := "" // the part's directory, for a union
		if a.u != nil {
			where = m.store.Dir() + ": "
		}
		vr, err := m.store.Verify(func(id pack.ID, err error) {
			if err == nil {
				if objectsChecked++; opts.Objects != nil {
					opts.Objects(objectsChecked, objects)
				}
				return
			}
			what := "object " + id.String()
			if id == (pack.ID{}) {
				what = "pack data" // damage not tied to one object
			}
			fail(Problem{What: where + what, Err: err})
		})
		st.Objects += vr.Objects
		if err != nil {
			return st, fmt.Errorf("verify objects: %s%w", where, err)
		}
	}
	// The versions of a rebuildable input file are restored once, in
	// file order, below: that checks them and the file's stream together.
	paths, err := a.sourcePaths()
	if err != nil {
		return st, fmt.Errorf("verify: %w", err)
	}
	inFilePass := func(v *Version) bool {
		row, ok := paths[v.File]
		return ok && a.root.Files[row].Rebuildable
	}
	for _, m := range ms {
		if err := m.verifyRuns(fail, inFilePass, checkOne); err != nil {
			return st, err
		}
	}
	// Fixity of the inputs: every file the archive can rebuild must give
	// its decompressed stream back.
	err = a.walkSources(paths, nil, func(f InputFile, vs []Version) error {
		st.Inputs = append(st.Inputs, InputCheck{File: f})
		ic := &st.Inputs[len(st.Inputs)-1]
		if !f.Rebuildable {
			st.FilesUnknown++
			ic.Why = "the archive has no record of its stream (ingested before blockwarc recorded it, or from standard input)"
			return nil
		}
		// The compressed file is rebuilt in the same pass, from the same
		// restored records.
		var w io.Writer = io.Discard
		var ow *originalWriter
		if f.OriginalCompressed() {
			if zlibenc.Available {
				ow = newOriginalWriter(io.Discard, f.Original)
				defer ow.release()
				ow.soft = true
				w = ow
			} else {
				st.FilesOriginalUnchecked++
				ic.Why = "this build has no zlib (built without cgo): its compressed bytes were not rebuilt"
			}
		}
		lost := 0 // of the file's records and gaps, named by checkOne
		sst, err := a.streamSource(w, f, vs, nil, func(v *Version, p *Parts, _ []byte, err error) error {
			if err != nil {
				lost++
			}
			checkOne(v, p, err)
			return nil
		})
		switch {
		case err != nil:
			fail(Problem{What: "input file " + f.Name, Err: err})
			ic.Why = "it does not restore: " + err.Error()
			return nil
		case !sst.Exact && lost > 0:
			// Not a mismatch: the stream lacks what did not restore.
			fail(Problem{What: "input file " + f.Name, Err: fmt.Errorf("not rebuilt: %d of its records do not restore (named above)", lost)})
			ic.Why = fmt.Sprintf("%d of its records do not restore", lost)
			return nil
		case !sst.Exact:
			fail(Problem{What: "input file " + f.Name, Err: fmt.Errorf("%w: rebuilt %d bytes, SHA-256 %x; ingest recorded %d bytes, %x",
				ErrMismatch, sst.Bytes, sst.SHA256, f.StreamLen, f.StreamSHA256)})
			ic.Why = "its rebuilt stream differs from the one recorded at ingest"
			return nil
		}
		st.Files++
		ic.Stream = true
		if ow == nil {
			switch {
			case f.OriginalExact() && f.Original == nil && sst.SHA256 == f.SHA256 && sst.Bytes == f.Size:
				ic.Original, ic.SHA256 = true, sst.SHA256 // uncompressed: the stream is the file
			case ic.Why == "":
				ic.Why = "its compressed bytes do not restore as given (" + f.OriginalReason() + "); its decompressed stream does"
			}
			return nil
		}
		if err == nil {
			err = ow.close()
		}
		ost := originalStats(sst, ow, f)
		switch {
		case err != nil:
			fail(Problem{What: "input file " + f.Name + " (compressed)", Err: err})
		case !ost.Exact:
			fail(Problem{What: "input file " + f.Name + " (compressed)", Err: fmt.Errorf("%w: rebuilt %d bytes, SHA-256 %x; the file had %d bytes, %x",
				ErrMismatch, ost.Bytes, ost.SHA256, f.Size, f.SHA256)})
		default:
			st.FilesOriginal++
			ic.Original, ic.SHA256 = true, ost.SHA256
		}
		if !ic.Original {
			ic.Why = "its compressed bytes, rebuilt, differ from the file ingested"
		}
		return nil
	})
	if err != nil {
		fail(Problem{What: "input files", Err: err})
	}
	st.Corrected = a.Corrections()
	return st, nil
}

// verifyRuns restores every version of the archive's own catalog runs
// that inFilePass leaves out and checks it (checkOne), and checks the
// runs' key order.
func (a *Archive) verifyRuns(fail func(Problem), inFilePass func(*Version) bool, checkOne func(*Version, *Parts, error)) error {
	for _, run := range a.root.Runs {
		prev := ""
		for i, ref := range run {
			seg, _, err := a.store.Get(ref.ID)
			if err != nil {
				fail(Problem{What: "catalog segment " + ref.ID.String(), Err: err})
				continue
			}
			urls, err := decodeSegment(seg, readResolver(a.store))
			if err != nil {
				fail(Problem{What: "catalog segment " + ref.ID.String(), Err: err})
				continue
			}
			for j, u := range urls {
				if (i > 0 || j > 0) && u.Key <= prev || u.Key < ref.First || u.Key > ref.Last {
					fail(Problem{What: "catalog segment " + ref.ID.String(), Err: fmt.Errorf("%w: key %q out of order or range", errCatalog, u.Key)})
				}
				prev = u.Key
				for k := range u.Versions {
					if v := &u.Versions[k]; !inFilePass(v) {
						p, err := restore(v, a.get)
						checkOne(v, p, err)
					}
				}
			}
		}
	}
	return nil
}

// checkDigests rereads a restored record and checks the digests it
// declares where they held at ingest; it returns how many it checked.
func checkDigests(v *Version, p *Parts) (int64, error) {
	if v.Gap || !v.BlockDigestOK && !v.PayloadDigestOK {
		return 0, nil
	}
	r := warcio.NewReaderOptions(bytes.NewReader(p.Record()), v.File, warcio.Options{Digests: true, Policy: warcio.PolicyFail})
	rec, err := r.Next()
	if err != nil {
		return 0, fmt.Errorf("reread restored record: %w", err)
	}
	if _, err := io.Copy(io.Discard, rec.Body); err != nil {
		return 0, fmt.Errorf("reread restored record: %w", err)
	}
	d := rec.Digests()
	var n int64
	if v.BlockDigestOK {
		n++
		if d.BlockMatch != warcio.MatchOK {
			return n, fmt.Errorf("%w: WARC-Block-Digest", ErrDigest)
		}
	}
	if v.PayloadDigestOK {
		n++
		if d.PayloadMatch != warcio.MatchOK {
			return n, fmt.Errorf("%w: WARC-Payload-Digest", ErrDigest)
		}
	}
	return n, nil
}

// Walk calls fn with every catalog entry, run by run, keys ascending
// within a run. Versions of one key may appear in several runs. Gaps
// (Version.Gap) are left out; an entry of gaps only is not visited.
func (a *Archive) Walk(fn func(URLVersions) error) error {
	if a.u != nil {
		return a.unionWalk(fn, false, false)
	}
	return a.walk(func(u URLVersions) error {
		if u.Versions = dropGaps(u.Versions); len(u.Versions) == 0 {
			return nil
		}
		return fn(u)
	})
}

// walk is Walk with the gaps.
func (a *Archive) walk(fn func(URLVersions) error) error {
	if a.u != nil {
		return a.unionWalk(fn, false, true)
	}
	for _, run := range a.root.Runs {
		for _, ref := range run {
			seg, _, err := a.store.Get(ref.ID)
			if err != nil {
				return fmt.Errorf("read catalog segment %s: %w", ref.ID, err)
			}
			urls, err := decodeSegment(seg, readResolver(a.store))
			if err != nil {
				return fmt.Errorf("read catalog segment %s: %w", ref.ID, err)
			}
			for _, u := range urls {
				if err := fn(u); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
