package main

import (
	"strings"
	"unicode"
)

// The article-extraction benchmark's metric, written from the README of
// ../shared/testdata/article-extraction rather than shared with
// partition's benchmark, so that a slip in either shows as a difference
// between the two.

// shingleLen is the number of tokens in a shingle.
const shingleLen = 4

// isWord reports whether r belongs to a \w+ run of Python's re on str:
// letters, numbers and the underscore (combining marks are not \w there,
// so they split words here too).
func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_'
}

// shingleBag returns the multiset of text's shingles: every run of
// shingleLen consecutive tokens, or the whole text as one shingle when
// it has fewer tokens; none for a text without tokens.
func shingleBag(text string) map[string]int {
	tokens := strings.FieldsFunc(text, func(r rune) bool { return !isWord(r) })
	bag := make(map[string]int)
	if len(tokens) == 0 {
		return bag
	}
	if len(tokens) < shingleLen {
		bag[strings.Join(tokens, " ")] = 1
		return bag
	}
	for i := 0; i+shingleLen <= len(tokens); i++ {
		bag[strings.Join(tokens[i:i+shingleLen], " ")]++
	}
	return bag
}

// counts is one page's tp, fp and fn, normalised by their sum so that
// every page weighs the same (all zero when both texts are empty).
type counts struct{ tp, fp, fn float64 }

// score compares an extracted text with the true one.
func score(truth, extracted string) counts {
	want, got := shingleBag(truth), shingleBag(extracted)
	var c counts
	for s, n := range want {
		m := got[s]
		c.tp += float64(min(n, m))
		c.fn += float64(n - min(n, m))
	}
	for s, m := range got {
		c.fp += float64(m - min(m, want[s]))
	}
	if sum := c.tp + c.fp + c.fn; sum > 0 {
		c.tp, c.fp, c.fn = c.tp/sum, c.fp/sum, c.fn/sum
	}
	return c
}

// result is an extractor's figures on a set of pages.
type result struct {
	pages int
	p, r  float64
	f1    float64
}

// aggregate averages precision and recall over the pages, each page
// counted only where its ratio is defined (an empty extraction has no
// precision but a recall of 0), a page with neither fp nor fn as 1 and
// 1, and takes F1 of the two averages.
func aggregate(pages []counts) result {
	var pSum, rSum float64
	var pN, rN int
	for _, c := range pages {
		if c.fp == 0 && c.fn == 0 {
			pSum, rSum, pN, rN = pSum+1, rSum+1, pN+1, rN+1
			continue
		}
		if c.tp+c.fp > 0 {
			pSum, pN = pSum+c.tp/(c.tp+c.fp), pN+1
		}
		if c.tp+c.fn > 0 {
			rSum, rN = rSum+c.tp/(c.tp+c.fn), rN+1
		}
	}
	res := result{pages: len(pages)}
	if pN > 0 {
		res.p = pSum / float64(pN)
	}
	if rN > 0 {
		res.r = rSum / float64(rN)
	}
	if res.p+res.r > 0 {
		res.f1 = 2 * res.p * res.r / (res.p + res.r)
	}
	return res
}
