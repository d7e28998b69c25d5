package partition

// features computes a block's Features from the index: counts are
// differences of prefix sums, so this is O(len(text)) for the rune and
// word counts and O(1) for everything else.
func (x *docIndex) features(s span, text string, start, end int) Features {
	f := Features{
		Bytes:    end - start,
		TextLen:  x.runeCount(s, text),
		Words:    x.words(s),
		Links:    sum(x.cumLinks, s),
		Images:   sum(x.cumImages, s),
		Forms:    sum(x.cumForms, s),
		Inputs:   sum(x.cumInputs, s),
		Headings: sum(x.cumHeadings, s),
	}
	f.LinkTextLen = min(sum(x.cumLinkRunes, s), f.TextLen)
	if f.TextLen > 0 {
		f.LinkTextRatio = float64(f.LinkTextLen) / float64(f.TextLen)
	}
	if len(x.doc) > 0 && start >= 0 {
		f.Position = float64(start) / float64(len(x.doc))
	}
	return f
}

// runeCount returns utf8.RuneCountInString(text) for text == x.spanText(s)
// without reading it: the text's bytes less its continuation bytes, which
// all lie inside the trimmed text (Trim removes ASCII separators only).
func (x *docIndex) runeCount(s span, text string) int {
	return len(text) - sum(x.cumCont, s)
}
