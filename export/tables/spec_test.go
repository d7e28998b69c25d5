package tables

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestSpecsMatchDocs: docs/TABLES.md has one "## name — doc" section per
// spec, in the order of Specs, and no other table section.
func TestSpecsMatchDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/TABLES.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^## ([a-z_]+) — (.+)$`).FindAllStringSubmatch(string(b), -1) {
		got = append(got, m[1]+" — "+m[2])
	}
	var want []string
	for _, s := range Specs {
		want = append(want, s.Name+" — "+s.Doc)
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/TABLES.md table sections\n got %q\nwant %q", got, want)
	}
}

// TestRowTables: every row type names a spec, and no two the same one.
func TestRowTables(t *testing.T) {
	rows := []Row{&Capture{}, &Block{}, &CaptureBlock{}, &Change{}, &URL{}, &Link{}}
	var names []string
	for _, r := range rows {
		names = append(names, r.Table())
	}
	if !slices.Equal(names, Names()) {
		t.Errorf("row tables %q, specs %q", names, Names())
	}
}

// takeSink records the tables of the rows it is given.
type takeSink struct {
	takes  func(string) bool
	got    []string
	fail   error
	closed int
}

func (s *takeSink) Takes(t string) bool { return s.takes(t) }
func (s *takeSink) Add(r Row) error     { s.got = append(s.got, r.Table()); return s.fail }
func (s *takeSink) Close() error        { s.closed++; return s.fail }

// TestTee: each sink gets the rows of the tables it takes, in order; the
// tee takes what any takes; Close closes all and returns the first error.
func TestTee(t *testing.T) {
	all := &takeSink{takes: TakesAll}
	noLinks := &takeSink{takes: func(n string) bool { return n != LinksTable }}
	s := Tee(all, noLinks)
	if !s.Takes(LinksTable) || !s.Takes(CapturesTable) {
		t.Error("tee does not take what one of its sinks takes")
	}
	if Tee(noLinks).Takes(LinksTable) {
		t.Error("tee takes links nobody takes")
	}
	for _, r := range []Row{&Capture{}, &Link{}, &URL{}} {
		if err := s.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{CapturesTable, LinksTable, URLsTable}; !slices.Equal(all.got, want) {
		t.Errorf("all got %q, want %q", all.got, want)
	}
	if want := []string{CapturesTable, URLsTable}; !slices.Equal(noLinks.got, want) {
		t.Errorf("noLinks got %q, want %q", noLinks.got, want)
	}
	errA, errB := errors.New("a"), errors.New("b")
	a, b := &takeSink{takes: TakesAll, fail: errA}, &takeSink{takes: TakesAll, fail: errB}
	if err := Tee(a, b).Add(&Block{}); err != errA || len(b.got) != 0 {
		t.Errorf("Add: err %v, second sink got %q: want %v and nothing", err, b.got, errA)
	}
	if err := Tee(a, b).Close(); err != errA || a.closed != 1 || b.closed != 1 {
		t.Errorf("Close: err %v, closed %d %d: want %v, 1 1", err, a.closed, b.closed, errA)
	}
}
