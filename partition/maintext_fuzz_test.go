package partition

import (
	"testing"
	"unicode/utf8"
)

// FuzzMainText: for any bytes, the three main-text extractors return
// without panicking (the tables run them on every capture of strangers'
// dumps), give valid UTF-8, and give the same text when run again after
// another page: nothing of one page's run leaks into the next's. The
// seeds hold what takes mainText down its re-partitioning paths: a title
// left open, a page shown only by its <noscript> copy, ruby.
func FuzzMainText(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range []string{
		"<title>t<body><p>" + longWords(40) + "</p>",
		"<head><noscript><style>.x{display:block}</style></noscript></head><body><div id=app></div><noscript><article><p>" + longWords(60) + "</p></article></noscript>",
		"<noscript>",
		"<noscript><noscript><p>x</p></noscript></noscript>",
		"<p><ruby>法<rp>(</rp><rt>ほう</rt><rp>)</rp></ruby>律" + longWords(30) + "</p>",
		"<hgroup><h1>Headline</h1><h2>" + longWords(20) + ".</h2></hgroup><article><p>" + longWords(50) + "</p><p>" + longWords(50) + "</p></article>",
		"<footer class=above-footer><header>x</header><div class=hidden>h</div><article><p>" + longWords(50) + "</p></article></footer>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		res, err := Partition(doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		extract := func(r *Result) [3]string {
			return [3]string{MainText(r), MainTextWithLead(r), MainTextWithTitle(r)}
		}
		first := extract(res)
		for k, s := range first {
			if !utf8.ValidString(s) {
				t.Fatalf("extractor %d: invalid UTF-8 %q", k, s)
			}
		}
		if other, err := Partition(doc[len(doc)/2:], Options{}); err == nil {
			extract(other)
		}
		if again := extract(res); again != first {
			t.Fatalf("a second run differs:\n%q\n%q", first, again)
		}
	})
}

// longWords is n words of prose ending in a full stop.
func longWords(n int) string {
	b := make([]byte, 0, 8*n)
	for i := range n {
		b = append(b, "word"...)
		b = append(b, byte('a'+i%26))
		if i%7 == 6 {
			b = append(b, ',')
		}
		b = append(b, ' ')
	}
	return string(b) + "end."
}
