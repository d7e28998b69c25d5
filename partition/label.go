package partition

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Labels follow the block classes of Wang & Zhu 2012, decided by ordered
// rules over tag, class/id names and the block's features; the first rule
// that matches wins. The table, with reasons, is in docs/TOPICS-LABELS.md.

// nameTokens splits class and id values into lower-case words at
// punctuation, digits and camelCase boundaries: "mainNav site-footer" ->
// main nav site footer.
func nameTokens(vals ...string) []string {
	var out []string
	for _, v := range vals {
		start := -1
		prevLower := false
		for i, r := range v + " " {
			letter := unicode.IsLetter(r)
			upper := unicode.IsUpper(r)
			if start >= 0 && (!letter || (upper && prevLower)) {
				out = append(out, strings.ToLower(v[start:i]))
				start = -1
			}
			if letter && start < 0 {
				start = i
			}
			prevLower = letter && !upper
		}
	}
	return out
}

type cueSet map[string]bool

func cues(words string) cueSet {
	s := cueSet{}
	for _, w := range strings.Fields(words) {
		s[w] = true
	}
	return s
}

var (
	footerCues  = cues("footer copyright legal colophon imprint impressum")
	adCues      = cues("ad ads adv advert adverts advertisement advertising banner sponsor sponsored sponsors promo promoted promotion dfp adsense adsbygoogle taboola outbrain commercial")
	navCues     = cues("nav navbar navigation menu menubar submenu dropdown megamenu breadcrumb breadcrumbs pagination pager toc topbar masthead skip")
	relatedCues = cues("related recommended recommendations popular trending more tags tag also readmore share social sharing links sitemap")
	commentCues = cues("comment comments disqus respond reply replies discussion")
	contentCues = cues("article content post entry story body text main blog prose")
	titleCues   = cues("title headline heading")
	mediaTags   = cues("img figure picture video audio iframe embed object canvas")
)

func hasCue(tokens []string, set cueSet) bool {
	for _, t := range tokens {
		if set[t] {
			return true
		}
	}
	return false
}

// mayHaveCopyright is a one-pass filter for hasCopyright: false only
// when no cue can match. Every cue contains '©', '&', "righ", "rech" or
// "roit"; for ASCII text those are sought in any letter case (the
// lower-case forms of ASCII text are its ASCII lower-case forms); text
// with other bytes always passes.
func mayHaveCopyright(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf || c == '&' {
			return true
		}
		if c|0x20 == 'r' && i+3 < len(text) {
			a, b, d := text[i+1]|0x20, text[i+2]|0x20, text[i+3]|0x20
			if a == 'i' && b == 'g' && d == 'h' || a == 'e' && b == 'c' && d == 'h' || a == 'o' && b == 'i' && d == 't' {
				return true
			}
		}
	}
	return false
}

var copyrightCues = []string{"©", "&copy", "copyright", "all rights reserved", "alle rechte vorbehalten", "tous droits réservés", "todos los derechos reservados"}

func hasCopyright(text string) bool {
	if !mayHaveCopyright(text) {
		return false
	}
	low := strings.ToLower(text)
	for _, c := range copyrightCues {
		if strings.Contains(low, c) {
			return true
		}
	}
	return false
}

// labelBlock applies the rule table to one annotated block.
func labelBlock(b *Block, x *docIndex, s span) Label {
	f := b.Features
	role := ""
	if b.Node != nil {
		role = b.Node.Attr("role")
	}
	tok := nameTokens(b.ID, b.Class)
	small := f.TextLen < 400
	switch {
	case b.Node != nil && b.Node.Kind == ElementNode && isIsland(b.Node):
		return LabelScript
	case b.Tag != "body" && b.Tag != "html" && b.Tag != "main" &&
		(f.TextLen <= maxConsentText && consentName(b.ID, b.Class) && !inForm(b.Node) || isConsentText(b.Text, f)):
		// Before dialogs (consent banners are often role=dialog), ads
		// (they are often named "cookie-banner") and footers (they
		// sit at the bottom).
		return LabelConsent
	case b.Node != nil && b.Node.Kind == ElementNode && b.Tag != "body" && b.Tag != "html" && b.Tag != "main" &&
		f.TextLen <= maxDialogText && (isDialog(b.Node) || popupName(b.ID, b.Class)):
		return LabelDialog
	case b.Tag == "footer" || role == "contentinfo" || hasCue(tok, footerCues) && small:
		return LabelFooter
	case small && f.Position > 0.3 && hasCopyright(b.Text):
		return LabelFooter
	case hasCue(tok, adCues) && f.TextLen < 1000:
		return LabelAdvert
	case b.Tag == "nav" || role == "navigation" || role == "menu" || role == "menubar" || hasCue(tok, navCues) && f.LinkTextRatio > 0.3:
		return LabelNavigation
	case (f.Forms > 0 || f.Inputs >= 2 || b.Tag == "form" || role == "search") && f.TextLen < 300:
		return LabelForm
	case isHeadingTag(b.Tag) || b.Node != nil && (headingRank(x.doc, b.Node) > 0 || boldLine(b)) || (f.Headings > 0 || hasCue(tok, titleCues)) && f.Words > 0 && f.Words <= 25 && f.LinkTextRatio < 0.5:
		return LabelTitle
	case f.Links >= 1 && f.LinkTextRatio >= 0.5 && inMenu(b.Node):
		// A part of a menu (a dropdown, a column of a mega menu) is
		// navigation however long or low on the page its links are.
		return LabelNavigation
	case hasCue(tok, relatedCues) && f.Links >= 2 && f.LinkTextRatio > 0.3:
		return LabelRelatedLinks
	case f.Links >= 3 && f.LinkTextRatio >= 0.5:
		// Lists of links: short anchors (menu items) are navigation;
		// long anchors (headlines of other pages) are related links.
		if f.LinkTextLen/f.Links >= 25 || f.Position > 0.5 && !hasCue(tok, navCues) {
			return LabelRelatedLinks
		}
		return LabelNavigation
	case (mediaTags[b.Tag] || f.Images > 0) && f.TextLen < 40:
		return LabelMedia
	case hasCue(tok, commentCues):
		return LabelOther
	case f.TextLen >= 80 && f.LinkTextRatio < 0.4, hasCue(tok, contentCues) && f.TextLen >= 30 && f.LinkTextRatio < 0.5:
		return LabelContent
	}
	return LabelOther
}

// boldLine reports a block that is a <strong> or <b> alone: wrappers
// are tightened, so a bold-only paragraph or list item (a CMS editor's
// heading) becomes its bold element, no heading by its tag. A short one
// (at most 20 words) not ending as a sentence is a heading line.
func boldLine(b *Block) bool {
	if b.Tag != "strong" && b.Tag != "b" || b.Features.Words == 0 || b.Features.Words > 20 || b.Features.LinkTextRatio >= 0.5 {
		return false
	}
	t := strings.TrimSpace(b.Text)
	return t != "" && !strings.ContainsAny(t[len(t)-1:], ".,;")
}

func isHeadingTag(t string) bool {
	return len(t) == 2 && t[0] == 'h' && t[1] >= '1' && t[1] <= '6'
}

// inMenu reports whether n lies inside a nav element or an element with
// role navigation, menu or menubar.
func inMenu(n *Node) bool {
	if n == nil {
		return false
	}
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Kind != ElementNode {
			continue
		}
		if a.Tag == "nav" {
			return true
		}
		switch strings.ToLower(a.Attr("role")) {
		case "navigation", "menu", "menubar":
			return true
		}
	}
	return false
}

// consentPhrases are what the buttons of consent banners say, in
// English, German, French, Spanish, Italian, Dutch and Portuguese,
// lower-case; with "cookie" in a short text and a control or link, they
// mark a consent banner that no name gives away.
var consentPhrases = []string{"accept", "akzeptier", "zustimm", "einverstanden", "alle zulassen", "accepter", "j'accepte",
	"aceptar", "acepto", "accett", "accepteren", "aceitar", "agree", "allow all", "allow cookies", "got it", "verstanden"}

// maxConsentBannerText bounds the text of a consent banner found by its
// text: a policy page's paragraph on cookies says as much, but longer.
const maxConsentBannerText = 600

// isConsentText reports a short block with a control (a button: links
// are not enough, a policy's paragraph on cookies links to the settings)
// whose text speaks of cookies and has an accepting phrase.
func isConsentText(text string, f Features) bool {
	if f.TextLen == 0 || f.TextLen > maxConsentBannerText || f.Inputs == 0 {
		return false
	}
	low := strings.ToLower(text)
	if !strings.Contains(low, "cookie") {
		return false
	}
	for _, p := range consentPhrases {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}
