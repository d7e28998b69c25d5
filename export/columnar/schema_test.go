package columnar

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/schema.golden")

// describeSchemas renders every table's Arrow schema and the Parquet
// schema it is written with: what a notebook sees.
func describeSchemas(t *testing.T) []byte {
	var b bytes.Buffer
	for _, name := range Tables() {
		s := Schema(name)
		fmt.Fprintf(&b, "table %s\n", name)
		for _, f := range s.Fields() {
			null := "not null"
			if f.Nullable {
				null = "null"
			}
			typ := f.Type.String()
			if l, ok := f.Type.(*arrow.ListType); ok {
				en := "not null"
				if l.ElemField().Nullable {
					en = "null"
				}
				typ = fmt.Sprintf("list<%s %s>", l.Elem(), en)
			}
			fmt.Fprintf(&b, "  %-28s %-24s %s\n", f.Name, typ, null)
		}
		ps, err := pqarrow.ToParquet(s, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatalf("%s: Parquet schema: %v", name, err)
		}
		fmt.Fprintln(&b, "parquet:")
		schema.PrintSchema(ps.Root(), &b, 2)
		fmt.Fprintln(&b)
	}
	return b.Bytes()
}

func TestSchemaGolden(t *testing.T) {
	got := describeSchemas(t)
	path := filepath.Join("testdata", "schema.golden")
	if *update {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./export/columnar -run TestSchemaGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schemas differ from %s: a schema change changes every notebook; if it is intended, "+
			"update docs/TABLES.md and rerun with -update.\ngot:\n%s", path, got)
	}
}

// docColumn is a column as docs/TABLES.md describes it.
type docColumn struct {
	name, typ string
	nullable  bool
}

// docTables parses the column tables of docs/TABLES.md: "## <table> — …"
// headings followed by "| column | type | meaning |" rows.
func docTables(t *testing.T) map[string][]docColumn {
	t.Helper()
	path := filepath.Join("..", "..", "docs", "TABLES.md")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	heading := regexp.MustCompile(`^## ([a-z_]+) — `)
	out := map[string][]docColumn{}
	cur := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if strings.HasPrefix(line, "## ") {
			cur = ""
		}
		if cur == "" || !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			continue
		}
		name, typ, meaning := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1]), strings.Join(cells[2:], "|")
		if name == "column" || strings.HasPrefix(name, "---") {
			continue
		}
		out[cur] = append(out[cur], docColumn{name: name, typ: typ, nullable: strings.Contains(meaning, "null ")})
	}
	must(t, sc.Err())
	return out
}

// docType maps a type of docs/TABLES.md to the Arrow type written.
var docType = map[string]arrow.DataType{
	"string":       arrow.BinaryTypes.String,
	"timestamp":    timestampType,
	"bool":         arrow.FixedWidthTypes.Boolean,
	"int16":        arrow.PrimitiveTypes.Int16,
	"int32":        arrow.PrimitiveTypes.Int32,
	"int64":        arrow.PrimitiveTypes.Int64,
	"float32":      arrow.PrimitiveTypes.Float32,
	"float64":      arrow.PrimitiveTypes.Float64,
	"list<string>": stringListType,
}

// TestSchemaMatchesDoc: names, order, types and nullability are those of
// docs/TABLES.md, so the doc and the files cannot drift apart.
func TestSchemaMatchesDoc(t *testing.T) {
	doc := docTables(t)
	if len(doc) != len(Tables()) {
		t.Errorf("docs/TABLES.md describes %d tables, want %d", len(doc), len(Tables()))
	}
	for _, name := range Tables() {
		cols := doc[name]
		fields := Schema(name).Fields()
		if len(cols) != len(fields) {
			t.Errorf("%s: %d columns in the doc, %d in the schema", name, len(cols), len(fields))
			continue
		}
		for i, c := range cols {
			f := fields[i]
			if c.name != f.Name {
				t.Errorf("%s column %d: doc %q, schema %q", name, i+1, c.name, f.Name)
			}
			if want, ok := docType[c.typ]; !ok || !arrow.TypeEqual(want, f.Type) {
				t.Errorf("%s.%s: doc type %q, schema %s", name, c.name, c.typ, f.Type)
			}
			if c.nullable != f.Nullable {
				t.Errorf("%s.%s: doc nullable %v, schema %v", name, c.name, c.nullable, f.Nullable)
			}
		}
	}
}
