package partition

import (
	"math/rand"
	"strings"
	"testing"
)

// printOnlyBefore is printOnly without its ASCII shortcut.
func printOnlyBefore(n *Node) bool {
	for _, tok := range strings.Fields(nameOf(n)) {
		if strings.HasPrefix(tok, "print-") || strings.HasPrefix(tok, "print_") || tok == "printonly" || strings.HasPrefix(tok, "visible-print") || tok == "robots-nocontent" {
			return true
		}
	}
	return false
}

// TestPrintOnlyShortcut: printOnly answers as without the shortcut.
func TestPrintOnlyShortcut(t *testing.T) {
	atoms := []string{"print", "PRINT", "Print-", "print_", "-", "_", " ", "only", "ONLY", "visible-", "robots-nocontent",
		"Robots-NoContent", "header", "x", "İ", "PRİNT-", "\xff", "\t"}
	r := rand.New(rand.NewSource(7))
	hits := 0
	for range 100000 {
		var class, id strings.Builder
		for range r.Intn(5) {
			class.WriteString(atoms[r.Intn(len(atoms))])
		}
		for range r.Intn(4) {
			id.WriteString(atoms[r.Intn(len(atoms))])
		}
		n := &Node{Kind: ElementNode, Tag: "div", Attrs: []Attr{{Key: "class", Val: class.String()}, {Key: "id", Val: id.String()}}}
		want := printOnlyBefore(n)
		if got := printOnly(n); got != want {
			t.Fatalf("printOnly(class %q, id %q) = %v, want %v", class.String(), id.String(), got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 1000 {
		t.Fatalf("%d hits, want more to test with", hits)
	}
}
