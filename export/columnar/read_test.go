package columnar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// This file reads tables back for the tests, independently of the writer's
// column definitions: a record's columns are mapped onto the row struct's
// fields by position with reflection, so a column out of order or of the
// wrong type fails instead of being read the way it was written.

// partFiles returns a table's part files in name order.
func partFiles(t testing.TB, dir, table string, f Format) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, table, "part-*"+f.Ext()))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// readParquet reads one Parquet part file: its records (one per row group)
// and the row count of each row group from the file metadata.
func readParquet(t testing.TB, path string, mem memory.Allocator) (recs []arrow.RecordBatch, groups []int64) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer pf.Close()
	for i := 0; i < pf.NumRowGroups(); i++ {
		groups = append(groups, pf.RowGroup(i).NumRows())
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 4096}, mem)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	defer rr.Release()
	for rr.Next() {
		r := rr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("read %s: %v", path, err)
	}
	return recs, groups
}

// readIPC reads one Arrow IPC part file's record batches.
func readIPC(t testing.TB, path string, mem memory.Allocator) []arrow.RecordBatch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatalf("read %s batch %d: %v", path, i, err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	return recs
}

// rowsOf converts records into rows of type R (a struct of package
// tables), column i into field i; the fields after the columns are the
// hex ids tables.CaptureBlock and tables.Link carry for Go sinks only,
// left zero.
func rowsOf[R any](t testing.TB, recs []arrow.RecordBatch) []R {
	t.Helper()
	var out []R
	for _, rec := range recs {
		for i := 0; i < int(rec.NumRows()); i++ {
			var r R
			v := reflect.ValueOf(&r).Elem()
			if int(rec.NumCols()) > v.NumField() {
				t.Fatalf("%d columns for %d fields of %T", rec.NumCols(), v.NumField(), r)
			}
			for j := int(rec.NumCols()); j < v.NumField(); j++ {
				if !strings.HasSuffix(v.Type().Field(j).Name, "BlockID") {
					t.Fatalf("%T.%s has no column", r, v.Type().Field(j).Name)
				}
			}
			for j := 0; j < int(rec.NumCols()); j++ {
				if err := setField(v.Field(j), rec.Column(j), i); err != nil {
					t.Fatalf("%T.%s from column %s: %v", r, v.Type().Field(j).Name, rec.ColumnName(j), err)
				}
			}
			out = append(out, r)
		}
	}
	return out
}

func setField(f reflect.Value, col arrow.Array, i int) error {
	if f.Kind() == reflect.Pointer {
		if col.IsNull(i) {
			return nil
		}
		p := reflect.New(f.Type().Elem())
		if err := setValue(p.Elem(), col, i); err != nil {
			return err
		}
		f.Set(p)
		return nil
	}
	if col.IsNull(i) {
		return fmt.Errorf("null in row %d of a non-nullable field", i)
	}
	return setValue(f, col, i)
}

func setValue(f reflect.Value, col arrow.Array, i int) error {
	switch c := col.(type) {
	case *array.String:
		if f.Kind() != reflect.String {
			return fmt.Errorf("string column for %s", f.Type())
		}
		f.SetString(c.Value(i))
	case *array.Int16:
		if f.Kind() != reflect.Int16 {
			return fmt.Errorf("int16 column for %s", f.Type())
		}
		f.SetInt(int64(c.Value(i)))
	case *array.Int32:
		if f.Kind() != reflect.Int32 {
			return fmt.Errorf("int32 column for %s", f.Type())
		}
		f.SetInt(int64(c.Value(i)))
	case *array.Int64:
		if f.Kind() != reflect.Int64 {
			return fmt.Errorf("int64 column for %s", f.Type())
		}
		f.SetInt(c.Value(i))
	case *array.Float64:
		if f.Kind() != reflect.Float64 {
			return fmt.Errorf("float64 column for %s", f.Type())
		}
		f.SetFloat(c.Value(i))
	case *array.Float32:
		if f.Kind() != reflect.Float64 {
			return fmt.Errorf("float32 column for %s", f.Type())
		}
		f.SetFloat(float64(c.Value(i)))
	case *array.Boolean:
		if f.Kind() != reflect.Bool {
			return fmt.Errorf("bool column for %s", f.Type())
		}
		f.SetBool(c.Value(i))
	case *array.Timestamp:
		if f.Type() != reflect.TypeOf(time.Time{}) {
			return fmt.Errorf("timestamp column for %s", f.Type())
		}
		tt := c.DataType().(*arrow.TimestampType)
		if tt.Unit != arrow.Microsecond || tt.TimeZone != "UTC" {
			return fmt.Errorf("timestamp type %s", tt)
		}
		f.Set(reflect.ValueOf(time.UnixMicro(int64(c.Value(i))).UTC()))
	case *array.List:
		if f.Type() != reflect.TypeOf([]string(nil)) {
			return fmt.Errorf("list column for %s", f.Type())
		}
		vals, ok := c.ListValues().(*array.String)
		if !ok {
			return fmt.Errorf("list of %s", c.ListValues().DataType())
		}
		start, end := c.ValueOffsets(i)
		var l []string // an empty list reads as nil, as the rows write it
		for k := start; k < end; k++ {
			l = append(l, vals.Value(int(k)))
		}
		f.Set(reflect.ValueOf(l))
	default:
		return fmt.Errorf("unexpected column type %s", col.DataType())
	}
	return nil
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
