package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockwarc/blockwarc/warcio"
)

// Expected values below come from warcio.js 2.4.11 (jsonToQueryString,
// mfdToQueryString from its utils, and JavaScript's decodeURI), run with
// node on the same inputs.

func TestJSONToQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1,"b":[1,2,{"c":"x y"}],"a2":null,"d":true,"e":"","f":1.5e21,"g":0.0000001}`, "a=1&b=1&b.2_=2&c=x+y&a2=null&d=true&f=1.5e%2B21&g=1e-7"},
		{`{"b":1,"2":"two","1":"one","b":2}`, "1=one&2=two&b=2"},
		{`{"a":{"a":1,"a":2},"x":[{"a":3}]}`, "a=2&a.2_=3"},
		{`"str"`, "=str"},
		{`not json`, ""},
		{`[1,"é&=?"]`, "=1&.2_=%C3%A9%26%3D%3F"},
		{`{"k":-0,"n":123456789012}`, "k=0&n=123456789012"},
	}
	for _, tt := range tests {
		if got := jsonToQuery(tt.in); got != tt.want {
			t.Errorf("jsonToQuery(%s) = %q, warcio.js %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeURI(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"a%20b%2Fc%3F", "a b%2Fc%3F", true},
		{"%E2%82%AC%25", "€%", true},
		{"%zz", "", false},
		{"%E2%82", "", false},
		{"plain+text", "plain+text", true},
	}
	for _, tt := range tests {
		got, ok := decodeURI(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("decodeURI(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMultipartToQuery(t *testing.T) {
	body := "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nhello world\r\n--XyZ\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nsecond\r\n--XyZ--\r\n"
	if got := multipartToQuery(body, "multipart/form-data; boundary=XyZ"); got != "a=hello+world&b=second" {
		t.Errorf("multipartToQuery = %q", got)
	}
}

func TestJSTimestamp(t *testing.T) {
	for in, want := range map[string]string{
		"2014-01-21T16:40:35Z":        "20140121164035",
		"2020-08-09T19:53:34.123456Z": "20200809195334",
		"20080430204825":              "20080430204825",
		"":                            "",
	} {
		if got := jsTimestamp(in); got != want {
			t.Errorf("jsTimestamp(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppendTo(t *testing.T) {
	e := &CDXJEntry{URLKey: "com,example)/", Timestamp: "20200101000000", URL: "http://example.com/\"<é>\x01\n",
		Mime: "text/html", Status: "200", Digest: "ABC", Length: 12, Offset: 34, Filename: "a.warc.gz"}
	got := string(e.AppendTo(nil))
	want := "com,example)/ 20200101000000 {\"url\":\"http://example.com/\\\"<é>\\u0001\\n\",\"mime\":\"text/html\",\"status\":\"200\",\"digest\":\"ABC\",\"length\":\"12\",\"offset\":\"34\",\"filename\":\"a.warc.gz\"}\n"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	e = &CDXJEntry{URLKey: "-", Timestamp: "2020", Length: 1, Offset: 0, Filename: "f", Method: "POST", RequestBody: "a=1"}
	if got := string(e.AppendTo(nil)); got != "- 2020 {\"length\":\"1\",\"offset\":\"0\",\"filename\":\"f\",\"method\":\"POST\",\"requestBody\":\"a=1\"}\n" {
		t.Fatalf("got %s", got)
	}
}

// FuzzCDXJLine checks that any entry makes one line whose JSON block
// parses back to the same values, and that the POST query builders never
// panic.
func FuzzCDXJLine(f *testing.F) {
	f.Add("http://example.com/a?b=1", "text/html", "a=1&b=%20", `{"a":[1,{"b":null}]}`)
	f.Add("dns:x", "", "%E2%82", "[")
	f.Fuzz(func(t *testing.T, url, mime, body, js string) {
		e := &CDXJEntry{URLKey: "k", Timestamp: "t", URL: url, Mime: mime, Filename: "f", Method: "POST", RequestBody: body}
		line := string(e.AppendTo(nil))
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Fatalf("entry spans lines: %q", line)
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "k t ")), &m); err != nil {
			t.Fatalf("JSON block does not parse: %v: %q", err, line)
		}
		if string([]rune(url)) != m["url"] && url != "" {
			t.Fatalf("url %q came back as %q", url, m["url"])
		}
		jsonToQuery(js)
		decodeURI(body)
		multipartToQuery(body, "multipart/form-data; boundary="+mime)
		postQuery(&summary{httpCT: mime, body: []byte(body), method: "POST"})
	})
}

// TestCDXJSpool merges late (POST) lines into the main stream, with the
// main stream in memory and spilled to a temporary file. Lines of equal
// key and time come in byte order (the walk gave b 1 {"z"} first), and an
// undated line ("null", first in walk order) after the key's dated ones.
func TestCDXJSpool(t *testing.T) {
	main := []string{"a null {}\n", "a 1 {}\n", "b 1 {\"z\":1}\n", "b 1 {}\n", "b 2 {}\n", "d 1 {}\n"}
	late := []string{"e 0 {}\n", "b 1 {\"late\":1}\n", "0 9 {}\n", "c 5 {}\n"}
	want := "0 9 {}\na 1 {}\na null {}\nb 1 {\"late\":1}\nb 1 {\"z\":1}\nb 1 {}\nb 2 {}\nc 5 {}\nd 1 {}\ne 0 {}\n"
	for _, limit := range []int{0, 8} {
		dir := t.TempDir()
		sp := &CDXJSpool{TempDir: dir, MemLimit: limit}
		for i := range main {
			if err := sp.Main([]byte(main[i])); err != nil {
				t.Fatal(err)
			}
			if i < len(late) {
				sp.Late([]byte(late[i]))
			}
		}
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		if err := sp.CopyTo(w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		sp.Cleanup()
		if out.String() != want {
			t.Errorf("memLimit %d: got\n%s\nwant\n%s", limit, out.String(), want)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("memLimit %d: %d temp files left", limit, len(left))
		}
		if (limit != 0) != (sp.f != nil) {
			t.Errorf("memLimit %d: spilled to file: %v", limit, sp.f != nil)
		}
	}
}

// TestCDXJSpoolKilledLeftover: the temporary file an index run killed
// (kill -9) left in -tmp, the index's size, is removed by the next
// spool that spills there; a live one's is not.
func TestCDXJSpoolKilledLeftover(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "blockwarc-index-123")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "index-1.cdxj"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, release, err := warcio.MakeLockedTemp(dir, "blockwarc-index-")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	sp := &CDXJSpool{TempDir: dir, MemLimit: 8}
	for _, l := range []string{"a 1 {}\n", "b 1 {}\n", "c 1 {}\n"} {
		if err := sp.Main([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if sp.f == nil {
		t.Fatal("the spool did not spill")
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("a killed index's temporary file is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live index's temporary file was removed: %v", err)
	}
	sp.Cleanup()
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("%d entries left, want the live one's alone", len(left))
	}
}
