package partition

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// reassembleLeaves rebuilds the page from res's layout and leaves.
func reassembleLeaves(t *testing.T, res *Result) []byte {
	t.Helper()
	var leaves [][]byte
	for _, l := range res.Leaves {
		leaves = append(leaves, res.BlockBytes(l))
	}
	out, err := Reassemble(res.Layout, leaves)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A nonce in an inline script inside the article changes the layout,
// not the article's text: the script is cut out of the block it sits in
// and, like scripts between blocks, left to the layout. A noscript (a
// lazy-loaded picture's real image) stays in the content.
func TestCarveInlineScriptChurn(t *testing.T) {
	page := func(nonce string) []byte {
		return []byte(`<html><head><title>T</title></head><body>
<nav><a href=/a>Home</a> <a href=/b>About</a> <a href=/c>Contact</a></nav>
<article id=story><p>` + longText + `</p>
<script nonce="` + nonce + `">window.__STATE__ = {"counter": "` + nonce + `"};</script>
<script type="application/ld+json">{"@type": "Article", "dateModified": "` + nonce + `"}</script>
<p>` + longText + ` Second.</p><noscript><img src="/photo.jpg"></noscript></article>
<footer>Copyright 2024 Example</footer></body></html>`)
	}
	for lv := 1; lv <= 3; lv++ {
		a := mustPartition(t, page("aaaa1111"), Options{Level: lv})
		b := mustPartition(t, page("bbbb2222"), Options{Level: lv})
		for _, r := range []*Result{a, b} {
			if out := reassembleLeaves(t, r); !bytes.Equal(out, r.Doc) {
				t.Fatalf("level %d: reassembly differs", lv)
			}
			for _, l := range r.Leaves {
				bb := r.BlockBytes(l)
				if l.Label == LabelScript {
					t.Fatalf("level %d: script block %s: %q", lv, l.Path, bb)
				}
				if l.Tag != "head" && bytes.Contains(bytes.ReplaceAll(bb, []byte("<noscript"), nil), []byte("<script")) {
					t.Fatalf("level %d: block %s (%s) holds a script: %q", lv, l.Path, l.Label, bb)
				}
			}
			if !bytes.Contains(r.Layout.Encode(), []byte(`"counter"`)) {
				t.Fatalf("level %d: the script is not in the layout", lv)
			}
		}
		for _, p := range Match(a, b, SimOptions{}) {
			if p.Kind != Identical {
				t.Fatalf("level %d: %v pair: %v %v", lv, p.Kind, p.Old, p.New)
			}
		}
	}
}

// A style element and a template inside a text block are cut out to the
// layout too; a text block with none is left as it was.
func TestCarveStyleTemplate(t *testing.T) {
	doc := []byte(`<html><body><div id=main><p>` + longText + `</p><style>.x{color:red}</style>` +
		`<template><p>row</p></template><p>` + longText + `</p></div><div id=side><p>` + longText + `</p></div></body></html>`)
	res := mustPartition(t, doc, Options{Level: 1})
	var got []string
	for _, l := range res.Leaves {
		got = append(got, string(l.Label)+":"+l.Tag)
	}
	want := "content:p content:p other:div"
	if strings.Join(got, " ") != want {
		t.Fatalf("leaves %q, want %q", strings.Join(got, " "), want)
	}
	if !bytes.Equal(reassembleLeaves(t, res), doc) {
		t.Fatal("reassembly differs")
	}
}

func labelOf(t *testing.T, res *Result, id string) Label {
	t.Helper()
	var found Label
	var visit func(bs []*Block)
	visit = func(bs []*Block) {
		for _, b := range bs {
			if b.ID == id {
				found = b.Label
			}
			visit(b.Children)
		}
	}
	visit(res.Blocks)
	if found == "" {
		t.Fatalf("no block #%s", id)
	}
	return found
}

// Labels as a reader sees the regions: consent banners by name or by
// what their buttons say, dialogs, and the parts of menus.
func TestLabelsDialogConsentMenu(t *testing.T) {
	para := "<p>" + longText + " " + longText + "</p>"
	doc := []byte(`<html><body>
<div id=onetrust-banner-sdk class="otFlat"><p>We use cookies to improve your experience on our site.</p><button>Accept all cookies</button></div>
<div id=hinweis><p>Diese Website verwendet Cookies. Mit Klick auf den Knopf stimmen Sie zu.</p><button>Alle akzeptieren</button></div>
<div id=bar class="cookie-banner"><p>Cookies help us deliver our services and ads.</p><a href=/ok>OK</a></div>
<div id=dlg role=dialog aria-labelledby=h><h2 id=h>Sign in</h2><p>Enter your e-mail address and password to sign in.</p></div>
<div id=lightbox class="lightbox"><p>A large photograph of the harbour at dawn, with boats.</p><button id=lightboxClose>Close this picture</button></div>
<button id=alone class="modalClose">Close</button>
<form id=comments><div>` + strings.Repeat(longText, 6) + `</div><p><textarea name=c></textarea></p><p id=save class="comment-form-cookies-consent"><input type=checkbox> Save my name and e-mail in this browser.</p><button>Post</button></form>
<nav id=menu><ul><li><a href=/1>Products</a><ul id=drop class="sub-list"><li><a href=/1/a>A long product name that is long enough</a></li><li><a href=/1/b>Another long product name that is long</a></li><li><a href=/1/c>A third long product name that is long</a></li></ul></li><li><a href=/2>Pricing</a></li></ul></nav>
<div id=policy class="cmp-text"><h2>Cookies</h2>` + para + `<p>We use cookies. You can accept or refuse them in the settings, see <a href=/s>settings</a>. ` + longText + ` ` + longText + `</p></div>
<main id=main class="page cookie-consent-shown">` + para + para + `</main>
</body></html>`)
	res := mustPartition(t, doc, Options{Level: 3})
	for id, want := range map[string]Label{
		"onetrust-banner-sdk": LabelConsent,
		"hinweis":             LabelConsent,
		"bar":                 LabelConsent,
		"dlg":                 LabelDialog,
		"lightbox":            LabelDialog,
		"menu":                LabelNavigation,
		"drop":                LabelNavigation,
		// The close button is part of the lightbox it sits in; its own
		// name ("lightboxClose", a part of one) does not make it one.
		"lightboxClose": LabelDialog,
		"alone":         LabelOther,
	} {
		if got := labelOf(t, res, id); got != want {
			t.Errorf("#%s: label %s, want %s", id, got, want)
		}
	}
	for _, id := range []string{"policy", "main", "save", "alone"} {
		if got := labelOf(t, res, id); got == LabelConsent || got == LabelDialog {
			t.Errorf("#%s: label %s", id, got)
		}
	}
}

// Dialogs and consent banners inside a content block are cut out of it;
// a closed <dialog> is hidden (the UA style sheet), so as a child of a
// divided node it is no block at all.
func TestCarveDialogConsent(t *testing.T) {
	doc := []byte(`<html><body><article id=a><p>` + longText + `</p>` +
		`<div class="cc-window cookieconsent"><p>This site uses cookies.</p><button>Got it</button></div>` +
		`<div role=dialog aria-modal=true><p>Subscribe to our newsletter for more.</p></div>` +
		`<p>` + longText + `</p></article>` +
		`<section id=s><h2>Title of the section</h2><dialog><p>Are you sure you want to leave?</p></dialog><p>` + longText + `</p></section></body></html>`)
	res := mustPartition(t, doc, Options{Level: 1})
	var got []string
	for _, l := range res.Leaves {
		got = append(got, string(l.Label)+":"+l.Tag)
	}
	// The section is kept whole at level 1: its closed dialog is cut out.
	want := "content:p consent:div dialog:div content:p title:h2 dialog:dialog content:p"
	if strings.Join(got, " ") != want {
		t.Fatalf("leaves %q, want %q", strings.Join(got, " "), want)
	}
	if !bytes.Equal(reassembleLeaves(t, res), doc) {
		t.Fatal("reassembly differs")
	}
	res = mustPartition(t, doc, Options{Level: 3})
	for _, l := range res.Leaves {
		if bytes.HasPrefix(res.BlockBytes(l), []byte("<dialog")) {
			t.Fatal("a closed dialog between blocks is a block")
		}
	}
}

// Labels as a reader sees them where no landmark says so: the parts of a
// pop-up named "modal-window", heading lines written as paragraphs, short
// paragraphs, the word "Advertisement" over an ad slot, a sign-up form
// named after the footer it sits in, and link columns that end in the
// copyright line.
func TestLabelsReaderCues(t *testing.T) {
	links := ""
	for i := range 8 {
		links += fmt.Sprintf(`<li><a href=/s%d>Section %d</a></li>`, i, i)
	}
	doc := []byte(`<html><body><div id=top><p>` + longText + longText + `</p></div>
<div class="modal-window window-register"><header id=mh>Register</header><section id=mb class=body><p>Do you have an account?</p><button>Yes</button><button>No</button></section></div>
<div id=policy><p id=h1>4. COOKIES AND SIMILAR TECHNOLOGIES</p><p id=h2>WHO WE ARE</p><p id=short>Per Post:</p><p id=sent>We are a company.</p>` +
		`<p id=lower>Our office</p><p>` + longText + longText + `</p></div>
<div id=slot3><p>ADVERTISEMENT</p><div><iframe src=/ad></iframe></div></div>
<div id=side><p>` + longText + longText + `</p></div>
<div id=block-footer-signup><p>Sign up for our daily e-mail.</p><input type=email name=e><button>Sign up</button></div>
<div id=cols><ul>` + links + `</ul><p>© 2019 Example Media. All rights reserved</p></div>
</body></html>`)
	res := mustPartition(t, doc, Options{Level: 3})
	for id, want := range map[string]Label{
		"mh":                  LabelDialog,
		"mb":                  LabelDialog,
		"h1":                  LabelTitle,
		"h2":                  LabelTitle,
		"short":               LabelContent,
		"sent":                LabelContent,
		"lower":               LabelContent,
		"slot3":               LabelAdvert,
		"block-footer-signup": LabelForm,
		"cols":                LabelFooter,
	} {
		if got := labelOf(t, res, id); got != want {
			t.Errorf("#%s: label %s, want %s", id, got, want)
		}
	}
	for w, want := range map[string]bool{"modal-window": true, "modalWindow": true, "popup-container": true,
		"modal-header": false, "popupClose": false, "modal-window-body": false, "window-modal": false} {
		if got := popupContainer(w); got != want {
			t.Errorf("popupContainer(%q) = %v", w, got)
		}
	}
	for s, want := range map[string]bool{"4. COOKIES": true, "2.1 Scope of this policy": true, "IV. Your rights": true,
		"WHO WE ARE": true, "Who we are": false, "4. We collect data.": false, "2019 was a good year": false, "OK": false} {
		if got := headingLine(s, len(strings.Fields(s))); got != want {
			t.Errorf("headingLine(%q) = %v", s, got)
		}
	}
}

// Scripts, a style, and the white space, comments and empty or hidden
// elements beside them, are no block: the text block around them is cut
// into its paragraphs and the rest goes to the layout.
func TestCarveScriptRuns(t *testing.T) {
	doc := []byte(`<html><body><div id=main><p>` + longText + `</p>
<script>a()</script>
<!-- tag manager -->
<script>b()</script> <style>.y{}</style><div id=ad-slot></div><p>&nbsp;</p>
<p>` + longText + `</p><script>c()</script><div style="display:none">Thanks!</div></div><div id=side><p>` + longText + `</p></div></body></html>`)
	res := mustPartition(t, doc, Options{Level: 1})
	var got []string
	for _, l := range res.Leaves {
		got = append(got, string(l.Label)+":"+l.Tag)
	}
	want := "content:p content:p other:div"
	if strings.Join(got, " ") != want {
		t.Fatalf("leaves %q, want %q", strings.Join(got, " "), want)
	}
	if !bytes.Equal(reassembleLeaves(t, res), doc) {
		t.Fatal("reassembly differs")
	}
}

// A consent link inside a sentence is part of the sentence, not a banner:
// the paragraph is not cut around it. A consent banner (a block-level
// element) still is an island.
func TestCarveInlineConsentLink(t *testing.T) {
	para := `<p>We use cookies; you can change them in the <a href="#" class="cookie-settings">cookie settings</a> at any time, as the law asks of every site in the town.</p>`
	doc := `<html><body><div class="story"><p>` + longText + `</p>` + para + `<p>` + longText + ` Second.</p>` +
		`<div class="cookie-banner"><p>We use cookies.</p><button>Accept</button></div></div><footer>Harbour News</footer></body></html>`
	res := mustPartition(t, []byte(doc), Options{Level: 1})
	consent := 0
	for _, l := range res.Leaves {
		if l.Label == LabelConsent {
			consent++
			if l.Tag != "div" {
				t.Errorf("block %s <%s> is a consent island: %q", l.Path, l.Tag, res.BlockBytes(l))
			}
		}
		if strings.Contains(string(res.BlockBytes(l)), "cookie settings") && !strings.Contains(l.Text, "change them in the cookie settings at any time") {
			t.Errorf("the sentence is cut at its link: block %s %q", l.Path, l.Text)
		}
	}
	if consent != 1 {
		t.Errorf("%d consent blocks, want the banner", consent)
	}
	if !bytes.Equal(reassembleLeaves(t, res), []byte(doc)) {
		t.Fatal("reassembly differs")
	}
}
