package partition

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// refTokens is the reference tokenisation of a rendered text: eachWordAt's
// words, CJK runs cut into character bigrams (a lone character is its own
// token), each with its byte offset.
func refTokens(text string) []string {
	var out []string
	eachWordAt(text, func(off int, w string, cjk bool) bool {
		if !cjk || utf8.RuneCountInString(w) == 1 {
			out = append(out, fmt.Sprintf("%d:%s", off, w))
			return true
		}
		for i, r := range w {
			size := utf8.RuneLen(r)
			if i+size >= len(w) {
				break
			}
			_, size2 := utf8.DecodeRuneInString(w[i+size:])
			out = append(out, fmt.Sprintf("%d:%s", off+i, w[i:i+size+size2]))
		}
		return true
	})
	return out
}

// chunkedTokens tokenises text as Algorithm 3 does: in chunks, on demand,
// in an arbitrary order of chunks (blocks reach them in any order).
func chunkedTokens(text string) []string {
	t := &topicer{x: &docIndex{textStr: text, text: []byte(text)}}
	t.splitChunks()
	for c := len(t.chunks) - 1; c >= 0; c -= 2 { // odd chunks first, backwards
		t.chunkTokens(c)
	}
	var out []string
	for c := range t.chunks {
		for _, tk := range t.chunkTokens(c) {
			out = append(out, fmt.Sprintf("%d:%s", tk.off, t.words[tk.id].token))
		}
	}
	return out
}

// TestChunkedTokenize checks that tokenising the rendered text chunk by
// chunk, on demand, gives exactly the tokens of one pass of eachWordAt over
// the whole text, across chunk boundaries and for the cases the fast
// paths treat specially (upper case, apostrophes, non-ASCII, CJK runs).
func TestChunkedTokenize(t *testing.T) {
	parts := []string{
		"The quick Brown fox's tail", "don't’ stop’", "ÄRGER über Straße", "日本語のテキスト",
		"mixed日本text", "a'b''c", "l'homme d’État", "x\ny", "HTML5 CSS3 v1.2", "’quoted’",
		"한국어 문장", "ﬁnancial", "İstanbul", "123 456",
	}
	var texts []string
	texts = append(texts, parts...)
	// Long texts cross chunk boundaries (tokChunkSize) in many places.
	var b strings.Builder
	for i := 0; b.Len() < 5*tokChunkSize; i++ {
		b.WriteString(parts[i%len(parts)])
		if i%7 == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	texts = append(texts, b.String(), strings.Repeat("日本語", 3*tokChunkSize/9)+" end", strings.Repeat("Word ", tokChunkSize))
	for i, text := range texts {
		want, got := refTokens(text), chunkedTokens(text)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("text %d (%d bytes): chunked tokens differ from eachWordAt's\n got %.300q\nwant %.300q", i, len(text), got, want)
		}
	}
}

// FuzzTokenize compares chunked tokenisation with eachWordAt on texts as
// the text writer renders them (separators are single ' ' or '\n').
func FuzzTokenize(f *testing.F) {
	f.Add("The quick Brown fox's tail don't’ stop’ 日本語のテキスト mixed日本text")
	f.Add(strings.Repeat("l'homme d’État ", 400))
	f.Fuzz(func(t *testing.T, s string) {
		w := &textWriter{}
		w.write(s)
		text := string(w.buf)
		want, got := refTokens(text), chunkedTokens(text)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("chunked tokens differ\n got %q\nwant %q", got, want)
		}
	})
}
