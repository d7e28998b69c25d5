package dedupe

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blockwarc/blockwarc/dedupe/pack"
)

// A union archive (Join) reads several archives holding disjoint,
// ascending SURT key ranges — the shards of a sharded archive
// (dedupe/shard) — as one: every reader of an *Archive (cat, tables,
// report, export) works on it unchanged. The shards are opened on first
// use, so a lookup of one URL opens one shard. A Version read from a
// union remembers its shard (Version.shard), and Restore reads its
// objects there.

// union is the state of an Archive made by Join.
type union struct {
	parts []unionPart
	// route returns the index of the part whose key range holds key.
	route func(key string) int
}

type unionPart struct {
	once   sync.Once
	open   func() (*Archive, error)
	a      *Archive
	err    error
	opened atomic.Pointer[Archive] // a, once opened: read without waiting (Recovered)
}

// Join returns the archive that reads the archives opens return as one:
// part i holds the keys k with route(k) == i, parts in ascending key
// order, so that walking them one after the other walks all keys in
// order; part 0 holds the key "" (records without a target URI, and the
// gaps between records). A part is opened by its function on first use.
//
// Every part ingested the same input files, each keeping the records of
// its keys (Options.Select), so each part has a row for every file, with
// the whole file's stream, gaps and malformed count and its own records.
// The union's input-file table (Files) has the files that every part
// holds, in part 0's order, with Records summed and the rest from part
// 0's row (the part that learns the compressed originals, and holds the
// gaps). A file some part lacks (an ingest interrupted before that part
// committed it) is left out, as an unfinished file is.
func Join(opens []func() (*Archive, error), route func(key string) int) *Archive {
	u := &union{parts: make([]unionPart, len(opens)), route: route}
	for i, o := range opens {
		u.parts[i].open = o
	}
	return &Archive{u: u, root: &root{}}
}

// loadFiles reads the input-file table once: an archive's from the parts
// its root lists, a union's merged from its members'.
func (a *Archive) loadFiles() error {
	a.filesOnce.Do(func() {
		if a.u == nil {
			if a.filesErr = a.root.load(a.store); a.filesErr != nil {
				a.filesErr = fmt.Errorf("%s: %w", a.store.Dir(), a.filesErr)
			}
			return
		}
		ms, err := a.members()
		if err == nil {
			for _, m := range ms {
				if err = m.loadFiles(); err != nil {
					break
				}
			}
		}
		if err != nil {
			a.filesErr = err
			return
		}
		a.root.Files = mergeFiles(ms)
	})
	return a.filesErr
}

// mergeFiles is the union's input-file table (Join).
func mergeFiles(ms []*Archive) []InputFile {
	type fileID struct {
		name string
		size int64
		sum  [32]byte
	}
	rows := make([]map[fileID]int64, len(ms)) // records by file, parts 1...
	for k, m := range ms[1:] {
		rows[k+1] = make(map[fileID]int64, len(m.root.Files))
		for _, g := range m.root.Files {
			rows[k+1][fileID{g.Name, g.Size, g.SHA256}] = g.Records
		}
	}
	var out []InputFile
	for _, f := range ms[0].root.Files {
		id, all := fileID{f.Name, f.Size, f.SHA256}, true
		for _, recs := range rows[1:] {
			r, ok := recs[id]
			if !ok {
				all = false
				break
			}
			if r < 0 || f.Records < 0 {
				f.Records = -1
			} else {
				f.Records += r
			}
		}
		if all {
			out = append(out, f)
		}
	}
	return out
}

// Part returns part i of a union (opening it), or a itself for i == 0 of
// an archive that is not one.
func (a *Archive) Part(i int) (*Archive, error) {
	if a.u == nil {
		if i != 0 {
			return nil, fmt.Errorf("archive has one part, not %d", i+1)
		}
		return a, nil
	}
	p := &a.u.parts[i]
	p.once.Do(func() {
		p.a, p.err = p.open()
		if p.a != nil {
			p.opened.Store(p.a)
		}
	})
	return p.a, p.err
}

// Parts is how many parts a union has (1 for other archives).
func (a *Archive) Parts() int {
	if a.u == nil {
		return 1
	}
	return len(a.u.parts)
}

// members returns every part, opened (the archive itself when it is not a
// union).
func (a *Archive) members() ([]*Archive, error) {
	out := make([]*Archive, a.Parts())
	for i := range out {
		var err error
		if out[i], err = a.Part(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// closeUnion closes the parts opened.
func (u *union) close() error {
	var first error
	for i := range u.parts {
		p := &u.parts[i]
		p.once.Do(func() { p.err = fmt.Errorf("closed") }) // never open it now
		if p.a != nil {
			if err := p.a.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// tag marks vs as read from part i.
func tag(vs []Version, i int) {
	for k := range vs {
		vs[k].shard = i
	}
}

// unionVersions reads key's versions in the one part that holds it.
func (a *Archive) unionVersions(key string) ([]Version, error) {
	i := a.u.route(key)
	p, err := a.Part(i)
	if err != nil {
		return nil, err
	}
	vs, err := p.Versions(key)
	tag(vs, i)
	return vs, err
}

// unionWalk calls each part's walk (with gaps when gaps is set) in key
// order, tagging the versions.
func (a *Archive) unionWalk(fn func(URLVersions) error, ordered, gaps bool) error {
	for i := range a.u.parts {
		p, err := a.Part(i)
		if err != nil {
			return err
		}
		visit := func(u URLVersions) error {
			tag(u.Versions, i)
			return fn(u)
		}
		switch {
		case ordered:
			err = p.WalkOrdered(visit)
		case gaps:
			err = p.walk(visit)
		default:
			err = p.Walk(visit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// WalkOrderedPart is WalkOrdered of part i alone (of the archive itself
// when it is not a union, i == 0): the rows of one shard, built beside
// the others'. Its versions remember their part, so Restore through a
// reads them there, and a's other parts stay reachable for look-ups of
// other keys.
func (a *Archive) WalkOrderedPart(i int, fn func(URLVersions) error) error {
	p, err := a.Part(i)
	if err != nil {
		return err
	}
	if a.u == nil {
		return p.WalkOrdered(fn)
	}
	return p.WalkOrdered(func(u URLVersions) error {
		tag(u.Versions, i)
		return fn(u)
	})
}

// Stat returns the kind and plaintext length of object id: of the first
// part holding it in a union (an object's id is its content, so any copy
// says the same).
func (a *Archive) Stat(id pack.ID) (pack.Kind, int, error) {
	if a.u == nil {
		return a.store.Stat(id)
	}
	if _, ok := id.Place(); ok {
		// A place names an object of one part only.
		return 0, 0, fmt.Errorf("stat %s: a place names an object of one shard: ask the shard (Part)", id)
	}
	ms, err := a.members()
	if err != nil {
		return 0, 0, err
	}
	var last error
	for _, m := range ms {
		k, n, err := m.store.Stat(id)
		if err == nil {
			return k, n, nil
		}
		last = err
	}
	return 0, 0, last
}

// StatPart is Stat of an object of part i of a union (any archive's own
// objects when it is no union): a place names an object of one part.
func (a *Archive) StatPart(i int, id pack.ID) (pack.Kind, int, error) {
	if a.u == nil {
		return a.store.Stat(id)
	}
	if _, ok := id.Place(); !ok {
		return a.Stat(id)
	}
	p, err := a.Part(i)
	if err != nil {
		return 0, 0, err
	}
	return p.store.Stat(id)
}

// ContentID returns the name v's object id would have as a hash of its
// bytes: id itself, unless id names the object by place, which is then
// read (from v's part of a union) and hashed. The tables name blocks and
// layouts so, whatever the archive's naming: the same block has the
// same block_id in every archive.
func (a *Archive) ContentID(v *Version, id pack.ID) (pack.ID, error) {
	if _, ok := id.Place(); !ok {
		return id, nil
	}
	p := a
	if a.u != nil {
		var err error
		if p, err = a.Part(v.shard); err != nil {
			return pack.ID{}, err
		}
	}
	b, _, err := p.store.Get(id)
	if err != nil {
		return pack.ID{}, err
	}
	return p.store.Sum(b), nil
}

// Sum is the id of data in the archive named by hashes (pack.Store.Sum):
// for an object named by place, the name it would have had.
func (a *Archive) Sum(data []byte) pack.ID {
	if a.u == nil {
		return a.store.Sum(data)
	}
	// Every shard is an archive of short ids.
	return pack.Sum(data).Short()
}

// StoreStats is the storage account of the archive (pack.Store.Stats),
// summed over the parts of a union.
func (a *Archive) StoreStats() (pack.Stats, error) {
	ms, err := a.members()
	if err != nil {
		return pack.Stats{}, err
	}
	var st pack.Stats
	for _, m := range ms {
		// Objects named by place are in no index: the catalog names
		// them.
		seen := map[pack.ID]bool{}
		var places []pack.ID
		err := m.walk(func(u URLVersions) error {
			for i := range u.Versions {
				for _, id := range objectsOf(&u.Versions[i]) {
					if _, ok := id.Place(); ok && !seen[id] {
						seen[id] = true
						places = append(places, id)
					}
				}
			}
			return nil
		})
		if err != nil {
			return st, err
		}
		// In chunk order: each frame of chunks is decoded once.
		slices.SortFunc(places, func(a, b pack.ID) int { return bytes.Compare(a[:8], b[:8]) })
		s, err := m.store.StatsWith(places)
		if err != nil {
			return st, err
		}
		st.Add(s)
	}
	return st, nil
}

// Recovered says, for every part whose COMMIT was damaged and its copy
// served, what was wrong (pack.Store.Recovered); "" when none was.
func (a *Archive) Recovered() string {
	if a.u == nil {
		return a.store.Recovered()
	}
	out := ""
	for i := range a.u.parts {
		pa := a.u.parts[i].opened.Load()
		if pa == nil {
			continue // not opened: nothing read from it
		}
		if r := pa.store.Recovered(); r != "" {
			if out != "" {
				out += "; "
			}
			out += r
		}
	}
	return out
}

// ParityCoverage is pack.Store.ParityCoverage over the archive's
// stores (every shard of a union, each file named by its shard's
// directory).
func (a *Archive) ParityCoverage() (pack.ParityCoverage, error) {
	ms, err := a.members()
	if err != nil {
		return pack.ParityCoverage{}, err
	}
	var out pack.ParityCoverage
	for _, m := range ms {
		c, err := m.store.ParityCoverage()
		if err != nil {
			return out, err
		}
		out.Files += c.Files
		for _, n := range c.Unprotected {
			if a.u != nil {
				n = filepath.Join(filepath.Base(m.store.Dir()), n)
			}
			out.Unprotected = append(out.Unprotected, n)
		}
	}
	return out, nil
}

// Corrections lists what reads corrected through parity since the
// archive was opened (pack.Store.Corrections), over every part opened.
func (a *Archive) Corrections() []string {
	if a.u == nil {
		return a.store.Corrections()
	}
	var out []string
	for i := range a.u.parts {
		if pa := a.u.parts[i].opened.Load(); pa != nil {
			out = append(out, pa.store.Corrections()...)
		}
	}
	return out
}

// Generation names the state of the archive's commits: the commit
// sequence number of an archive, those of a union's parts joined by
// commas. Data derived from the archive (the tables) records it, so that
// a reader can tell it describes an earlier state.
func (a *Archive) Generation() (string, error) {
	ms, err := a.members()
	if err != nil {
		return "", err
	}
	seqs := make([]string, len(ms))
	for i, m := range ms {
		seqs[i] = strconv.FormatUint(m.store.Seq(), 10)
	}
	return strings.Join(seqs, ","), nil
}
