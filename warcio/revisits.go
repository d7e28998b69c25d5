package warcio

// Revisit resolution: each revisit record names the capture whose
// payload it repeats, by payload digest or, URL-agnostic, by the target
// URI and date it refers to.

import (
	"bufio"
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// isOriginal says whether a record can be the original of a revisit.
func isOriginal(r *Record) bool {
	return r.Type == "response" || r.Type == "resource"
}

func originOf(r *Record) *Origin {
	return &Origin{File: r.File, Offset: r.Offset, SkipInMember: r.SkipInMember,
		Date: r.Date, URI: r.TargetURI, RecordID: r.RecordID}
}

// payloadDigest is the record's payload digest in normalised form: the
// declared one, else the computed SHA-1.
func payloadDigest(r *Record) string {
	if d := normDigest(r.Header.Get("WARC-Payload-Digest")); d != "" {
		return d
	}
	if r.digests.PayloadSHA1 != nil {
		return "sha1:" + string(r.digests.PayloadSHA1)
	}
	return ""
}

// normDigest turns "sha1:BASE32" (or SHA-1 in hex or base64) into
// "sha1:" + the raw 20 bytes, so that the spellings compare equal; other
// algorithms are kept as "alg:value" with the algorithm lower-cased.
func normDigest(d string) string {
	alg, val, ok := strings.Cut(strings.TrimSpace(d), ":")
	if !ok || val == "" {
		return ""
	}
	alg = strings.ToLower(alg)
	if alg == "sha1" || alg == "sha-1" {
		var raw []byte
		var err error
		switch len(val) {
		case 32:
			raw, err = base32.StdEncoding.DecodeString(strings.ToUpper(val))
		case 40:
			raw, err = hex.DecodeString(val)
		case 28:
			raw, err = base64.StdEncoding.DecodeString(val)
			if err != nil {
				raw, err = base64.URLEncoding.DecodeString(val)
			}
		default:
			err = errBadMeta
		}
		if err == nil && len(raw) == 20 {
			return "sha1:" + string(raw)
		}
	}
	return alg + ":" + val
}

// parseRefDate parses WARC-Refers-To-Date (W3C-DTF, any precision).
func parseRefDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "20060102150405"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func agnosticKeys(key string, date time.Time) string {
	return "u\x00" + key + "\x00" + fmt.Sprint(date.Unix())
}

// noteRevisitTarget records what a URL-agnostic revisit refers to, and
// keeps a compact line for every possible original.
func (s *sorter) noteRevisitTarget(r *Record, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Type == "revisit":
		if r.RefersTo != "" {
			s.want(key, "i\x00"+r.RefersTo)
		}
		if r.RefersToTargetURI != "" {
			if t, ok := parseRefDate(r.RefersToDate); ok {
				s.want(key, agnosticKeys(SURT(r.RefersToTargetURI), t))
			}
		}
	case isOriginal(r):
		var e []byte
		e = appendStr(e, key)
		e = binary.AppendVarint(e, r.Date.Unix())
		e = binary.AppendUvarint(e, uint64(r.Date.Nanosecond()))
		e = appendStr(e, r.RecordID)
		e = appendStr(e, r.File)
		e = binary.AppendVarint(e, r.Offset)
		e = binary.AppendVarint(e, r.SkipInMember)
		e = appendStr(e, r.TargetURI)
		if s.notes != nil {
			appendNote(s.notes, noteOriginal, key, e)
			return nil
		}
		return s.addCandidate(e)
	}
	return nil
}

// want notes a target a revisit of key asks for.
func (s *sorter) want(key, target string) {
	if s.notes != nil {
		appendNote(s.notes, noteWanted, key, []byte(target))
		return
	}
	s.wanted[target] = nil
}

// addCandidate keeps the compact line of a possible original, spilling
// the lines to a temporary file beyond 1 MiB.
func (s *sorter) addCandidate(e []byte) error {
	var b [binary.MaxVarintLen64]byte
	s.side.write(b[:binary.PutUvarint(b[:], uint64(len(e)))])
	s.side.write(e)
	if s.side.n > 1<<20 {
		if s.sideFile == nil {
			f, err := os.CreateTemp(s.dir, "originals-*")
			if err != nil {
				return fmt.Errorf("create temp file: %w", err)
			}
			s.sideFile = f
		}
		for _, c := range s.side.bytes() {
			if _, err := s.sideFile.Write(c); err != nil {
				return fmt.Errorf("write temp file: %w", err)
			}
		}
		s.side.reset()
	}
	return nil
}

// sideList holds the candidate lines in chunks of sideChunk bytes, kept
// for reuse after a spill: a bytes.Buffer doubling up to the 1 MiB that is
// spilled copied each byte again and faulted in about twice the memory,
// on every walk (about 2 % of an index's CPU), while most walks never
// read the list.
type sideList struct {
	chunks [][]byte
	used   int // chunks in use: the last may have room
	n      int // bytes in them
}

const sideChunk = 64 << 10

func (l *sideList) write(p []byte) {
	for len(p) > 0 {
		if l.used == 0 || len(l.chunks[l.used-1]) == sideChunk {
			if l.used == len(l.chunks) {
				l.chunks = append(l.chunks, make([]byte, 0, sideChunk))
			}
			l.used++
		}
		c := &l.chunks[l.used-1]
		k := copy((*c)[len(*c):sideChunk], p)
		*c = (*c)[:len(*c)+k]
		p = p[k:]
		l.n += k
	}
}

// bytes returns the chunks in use.
func (l *sideList) bytes() [][]byte { return l.chunks[:l.used] }

// reset empties the list.
func (l *sideList) reset() {
	for i := range l.chunks[:l.used] {
		l.chunks[i] = l.chunks[i][:0]
	}
	l.used, l.n = 0, 0
}

// reader reads the list's bytes.
func (l *sideList) reader() io.Reader {
	rs := make([]io.Reader, l.used)
	for i, c := range l.bytes() {
		rs[i] = bytes.NewReader(c)
	}
	return io.MultiReader(rs...)
}

// resolveAgnostic finds the originals URL-agnostic revisits asked for by
// scanning the compact list of candidates once.
func (s *sorter) resolveAgnostic() error {
	if len(s.wanted) == 0 {
		return nil
	}
	scan := func(br *bufio.Reader) error {
		var buf []byte
		for {
			n, err := binary.ReadUvarint(br)
			if err == io.EOF {
				return nil
			}
			if err != nil || n > 1<<24 {
				return fmt.Errorf("read temp file: %w", errBadMeta)
			}
			buf = slices.Grow(buf[:0], int(n))[:n]
			if _, err := io.ReadFull(br, buf); err != nil {
				return fmt.Errorf("read temp file: %w", err)
			}
			d := &metaDecoder{b: buf}
			key := d.str()
			sec := d.varint()
			nsec := d.uvarint()
			o := &Origin{RecordID: d.str(), File: d.str(), Offset: d.varint(), SkipInMember: d.varint(), URI: d.str()}
			if d.err != nil {
				return fmt.Errorf("read temp file: %w", d.err)
			}
			o.Date = time.Unix(sec, int64(nsec)).UTC()
			for _, wk := range []string{"i\x00" + o.RecordID, agnosticKeys(key, o.Date)} {
				if prev, ok := s.wanted[wk]; ok && (prev == nil || o.Date.Before(prev.Date)) {
					s.wanted[wk] = o
				}
			}
		}
	}
	if s.sideFile != nil {
		if _, err := s.sideFile.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("read temp file: %w", err)
		}
		if err := scan(bufio.NewReaderSize(s.sideFile, 64<<10)); err != nil {
			return err
		}
	}
	return scan(bufio.NewReader(s.side.reader()))
}

func (s *sorter) lookupAgnostic(r *Record) *Origin {
	if len(s.wanted) == 0 {
		return nil
	}
	if r.RefersTo != "" {
		if o := s.wanted["i\x00"+r.RefersTo]; o != nil {
			return o
		}
	}
	if r.RefersToTargetURI != "" {
		if t, ok := parseRefDate(r.RefersToDate); ok {
			return s.wanted[agnosticKeys(SURT(r.RefersToTargetURI), t)]
		}
	}
	return nil
}
