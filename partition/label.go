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

// hasNameCue is hasCue(nameTokens(id, class), set) without making the
// tokens when id and class are ASCII (nearly always): for ASCII,
// eachNameToken splits as nameTokens does, and each token is lowered in
// a buffer on the stack. Ancestor walks (inPageFooter, inCommentThread)
// ask it of every element above every block.
func hasNameCue(set cueSet, id, class string) bool {
	if !isASCII(id) || !isASCII(class) {
		return hasCue(nameTokens(id, class), set)
	}
	var buf [64]byte
	return eachNameToken(func(tok string) bool {
		if len(tok) > len(buf) {
			return set[strings.ToLower(tok)]
		}
		return set[string(appendLower(buf[:0], tok))]
	}, id, class)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
	footerCues     = cues("footer copyright legal colophon imprint impressum")
	entryCues      = cues("post entry article story item comment card")
	breadcrumbCues = cues("breadcrumb breadcrumbs crumbs")
	adCues         = cues("ad ads adv advert adverts advertisement advertising banner sponsor sponsored sponsors promo promoted promotion dfp adsense adsbygoogle taboola outbrain commercial")
	navCues        = cues("nav navbar navigation menu menubar submenu dropdown megamenu breadcrumb breadcrumbs pagination pager toc topbar masthead skip")
	relatedCues    = cues("related recommended recommendations popular trending more tags tag also readmore share social sharing links sitemap")
	commentCues    = cues("comment comments disqus respond reply replies discussion")
	contentCues    = cues("article content post entry story body text main blog prose")
	titleCues      = cues("title headline heading")
	mediaTags      = cues("img figure picture video audio iframe embed object canvas")
)

func hasCue(tokens []string, set cueSet) bool {
	for _, t := range tokens {
		if set[t] {
			return true
		}
	}
	return false
}

// hasNavCue is hasCue(tokens, navCues), and names that run menu words
// together ("mobmenuright", "topmenu", "mainnav"): a token holding "menu"
// or ending in "nav".
func hasNavCue(tokens []string) bool {
	if hasCue(tokens, navCues) {
		return true
	}
	for _, t := range tokens {
		if strings.Contains(t, "menu") || len(t) > 3 && strings.HasSuffix(t, "nav") {
			return true
		}
	}
	return false
}

// copyrightTail: a block whose last this many bytes hold a copyright
// line ends with the site's copyright notice.
const copyrightTail = 100

// lastChars returns the last n bytes of s, from a rune boundary.
func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
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

// labelBlock applies the rule table to one annotated block. Inside the
// page's footer, a block the rules take for a heading, text or nothing
// in particular is the footer's (a column heading, the fine print);
// link lists and forms there keep what they are.
func labelBlock(b *Block, x *docIndex, s span) Label {
	footSet, inFoot := false, false
	foot := func() bool {
		if !footSet {
			footSet, inFoot = true, b.Node != nil && inPageFooter(x, b.Node)
		}
		return inFoot
	}
	switch l := ruleLabel(b, x, foot); l {
	case LabelTitle, LabelContent, LabelOther:
		if foot() {
			return LabelFooter
		}
		return l
	default:
		return l
	}
}

// ruleLabel is the rule table; foot reports whether the block lies in
// the page's footer (inPageFooter), computed on first need.
func ruleLabel(b *Block, x *docIndex, foot func() bool) Label {
	f := b.Features
	role := ""
	if b.Node != nil {
		role = b.Node.Attr("role")
	}
	tok := nameTokens(b.ID, b.Class)
	small := f.TextLen < 400
	var pop Label
	if b.Node != nil && b.Tag != "body" && b.Tag != "html" && b.Tag != "main" && b.Tag != "form" && role != "search" {
		// A header or body cut from a pop-up is part of the pop-up a
		// reader sees drawn over the page, whatever its own tag says
		// (a form in it stays a form: the search box of a search pop-up).
		pop = popupAncestor(x, b.Node)
	}
	switch {
	case b.Node != nil && (b.Node.Kind == ElementNode && isIsland(b.Node)):
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
	case pop != "":
		return pop
	case b.Tag == "footer" || role == "contentinfo":
		return LabelFooter
	case f.Inputs >= 2 && f.Links == 0 && f.TextLen < 300:
		// Fields and a button with no links: a sign-up or search form,
		// even where its name says where it sits ("footer-signup").
		return LabelForm
	case hasCue(tok, footerCues) && small && !hasCue(tok, entryCues):
		// "post-footer", "entry-footer": the foot of one article (its
		// tags, share bar, byline), not the page's footer.
		return LabelFooter
	case small && f.Position > 0.3 && hasCopyright(b.Text) && !inMainLandmark(b.Node):
		// Not inside the main content: there a copyright line is the
		// text's own (a licence page's notice).
		return LabelFooter
	case hasCue(tok, adCues) && f.TextLen < 1000 || adLabelText(b.Text):
		return LabelAdvert
	case b.Tag == "nav" || role == "navigation" || role == "menu" || role == "menubar" || hasNavCue(tok) && f.LinkTextRatio > 0.3,
		f.Links > 0 && hasCue(tok, breadcrumbCues):
		// A breadcrumb trail ends in the current page's title, not a
		// link: its link share is low when that title is long.
		return LabelNavigation
	case (f.Forms > 0 || f.Inputs >= 2 || b.Tag == "form" || role == "search") && (f.TextLen < 300 || f.Inputs*formTextPerInput >= f.TextLen) &&
		(f.Inputs > 0 || role == "search") && !itemCards(f):
		// A form element with no field or button ("1000 results -
		// showing 1 to 20.", a page wrapped in one form) is not a form
		// a reader fills in.
		if menuWithSearch(f) {
			// A site header's menu beside its search field: navigation
			// wherever it sits (a page with large inline scripts puts
			// its header past the middle of its bytes).
			return LabelNavigation
		}
		// A longer form whose text is mostly its fields' labels
		// (name, e-mail, company, a consent line) is still a form.
		return LabelForm
	case isHeadingTag(b.Tag) || b.Node != nil && (headingRank(x.doc, b.Node) > 0 || boldLine(b)) || (f.Headings > 0 || hasCue(tok, titleCues)) && f.Words > 0 && f.Words <= 25 && f.LinkTextRatio < 0.5,
		(b.Tag == "p" || b.Tag == "div") && f.LinkTextRatio < 0.5 && headingLine(b.Text, f.Words):
		return LabelTitle
	case f.Headings > 0 && f.TextLen <= maxTitleBlock && f.LinkTextRatio < 0.5 && b.Node != nil && holdsTopHeading(x.doc, b.Node):
		// The page's h1 with its kicker, byline and date: the head of
		// the article a reader sees as its title.
		return LabelTitle
	case f.Links >= 1 && b.Node != nil && inComplementary(b.Node) && headlineLink(x.doc, b.Node):
		// A teaser (a linked headline, an excerpt) beside the main
		// content: a link to another page, however long its excerpt.
		return LabelRelatedLinks
	case f.Links >= 1 && f.LinkTextRatio >= 0.5 && inMenu(b.Node):
		// A part of a menu (a dropdown, a column of a mega menu) is
		// navigation however long or low on the page its links are.
		return LabelNavigation
	case hasCue(tok, relatedCues) && f.Links >= 2 && f.LinkTextRatio > 0.3:
		return LabelRelatedLinks
	case f.Links >= 3 && f.LinkTextRatio >= 0.5:
		// Lists of links: short anchors (menu items) are navigation;
		// long anchors (headlines of other pages) are related links.
		// Link columns that end in the site's copyright line are the
		// page footer, however long.
		if f.Position > 0.3 && hasCopyright(lastChars(b.Text, copyrightTail)) {
			return LabelFooter
		}
		// Low on the page in bytes is not low on the screen for a
		// page's banner (a long head or inline scripts before it): its
		// short links are its menu.
		if f.LinkTextLen/f.Links >= 25 || f.Position > 0.5 && !hasNavCue(tok) && !foot() && !inBanner(b.Node) {
			return LabelRelatedLinks
		}
		return LabelNavigation
	case (mediaTags[b.Tag] || f.Images > 0) && f.TextLen < 40,
		b.Tag == "figure" && f.Images > 0 && f.TextLen <= maxCaption && f.LinkTextRatio < 0.5:
		// A figure is its picture and caption: the caption is the
		// picture's text, not the article's (HTML: figure, figcaption).
		return LabelMedia
	case hasCue(tok, commentCues):
		return LabelOther
	case f.TextLen >= 80 && f.LinkTextRatio < 0.4, hasCue(tok, contentCues) && f.TextLen >= 30 && f.LinkTextRatio < 0.5,
		textTags[b.Tag] && f.TextLen > 0 && f.LinkTextRatio < 0.5:
		// A paragraph is text to read however short ("Per Post:", an
		// address line in a policy), and so is a code sample or a
		// quotation: HTML says so by its tag.
		return LabelContent
	}
	return LabelOther
}

// itemCards reports a list of cards that each carry a form of their own
// (a shop's product grid: picture, name, price, an "add to basket"
// button): a list of items to read and follow, not a form to fill in.
func itemCards(f Features) bool {
	return f.Forms >= 3 && f.Inputs <= 2*f.Forms && f.Images*2 >= f.Forms && f.Links >= f.Forms
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

// inBanner reports whether n is, or lies inside, the page's banner: a
// header that is a landmark (isLandmark: not an article's or section's
// own header), or an element with role banner.
func inBanner(n *Node) bool {
	for a := n; a != nil; a = a.Parent {
		if a.Kind != ElementNode {
			continue
		}
		if a.Tag == "header" && isLandmark(a) || strings.EqualFold(strings.TrimSpace(a.Attr("role")), "banner") {
			return true
		}
	}
	return false
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

// formTextPerInput: a form with at least one field per this many
// characters of text is mostly fields and their labels.
const formTextPerInput = 60

// popupAncestor returns LabelDialog or LabelConsent when n lies inside a
// dialog (isDialog, popupName) or a consent banner (consentName) of at
// most maxDialogText / maxConsentText visible characters (larger ones are
// page wrappers named while a pop-up is open), else "".
func popupAncestor(x *docIndex, n *Node) Label {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Kind != ElementNode {
			continue
		}
		switch a.Tag {
		case "html", "body", "main":
			return ""
		}
		id, class := a.Attr("id"), a.Attr("class")
		consent := (id != "" || class != "") && consentName(id, class) && !inForm(a)
		dialog := isDialog(a) || popupName(id, class)
		if !consent && !dialog {
			continue
		}
		s, ok := x.nodeSpan(a)
		if !ok {
			return ""
		}
		text := int(x.textOff[s.hi]-x.textOff[s.lo]) - sum(x.cumCont, s)
		switch {
		case consent && text <= maxConsentText:
			return LabelConsent
		case dialog && text <= maxDialogText:
			return LabelDialog
		}
	}
	return ""
}

// adLabels are the words a page prints over an advertisement (lower-case):
// a block saying only that marks the slot of an advert.
var adLabels = map[string]bool{"ad": true, "ads": true, "advertisement": true, "advertisements": true, "advertising": true,
	"sponsored": true, "sponsored links": true, "sponsored content": true, "sponsored stories": true, "paid content": true,
	"promoted": true, "promoted content": true, "anzeige": true, "werbung": true, "publicité": true, "publicidad": true,
	"pubblicità": true, "advertentie": true, "publicidade": true}

func adLabelText(text string) bool {
	if len(text) == 0 || len(text) > maxAdLabel {
		return false
	}
	// Lower-case with single spaces, without allocating (this runs on
	// every short block); other scripts' capitals are rare here.
	var buf [maxAdLabel]byte
	n, space := 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			space = n > 0
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			buf[n] = ' '
			n++
			space = false
		}
		buf[n] = c
		n++
	}
	return adLabels[string(buf[:n])]
}

const maxAdLabel = 40

// headingLine reports a short line that a reader takes for a section
// heading though no tag says so: at most maxHeadingLineWords words, not
// ending as a sentence, and numbered ("4. COOKIES", "2.1 Scope", "IV.
// Rights") or in capitals ("WHO WE ARE").
func headingLine(text string, words int) bool {
	t := strings.TrimSpace(text)
	if words == 0 || words > maxHeadingLineWords || t == "" || strings.ContainsAny(t[len(t)-1:], ".,;!?") {
		return false
	}
	first, rest, _ := strings.Cut(t, " ")
	if sectionNumber(first) && rest != "" {
		r, _ := utf8.DecodeRuneInString(strings.TrimSpace(rest))
		return unicode.IsUpper(r)
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			if unicode.IsLower(r) {
				return false
			}
			letters++
		}
	}
	return letters >= 4
}

const maxHeadingLineWords = 12

// sectionNumber reports "4.", "2.1", "2.1.", "IV." or "A.".
func sectionNumber(w string) bool {
	if w == "" {
		return false
	}
	digits, dots := 0, 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && i > 0:
			dots++
		default:
			return roman(w)
		}
	}
	return digits > 0 && digits <= 4 && (dots > 0 || len(w) > 1 && strings.Contains(w, "."))
}

// roman reports an upper-case roman numeral or single capital letter
// followed by a full stop ("IV.", "A.").
func roman(w string) bool {
	if len(w) < 2 || w[len(w)-1] != '.' {
		return false
	}
	w = w[:len(w)-1]
	if len(w) == 1 && w[0] >= 'A' && w[0] <= 'Z' {
		return true
	}
	return strings.Trim(w, "IVXL") == ""
}

// textTags are the elements whose content is text to read.
var textTags = map[string]bool{"p": true, "pre": true, "code": true, "blockquote": true}

// inMainLandmark reports whether n lies inside the page's main content:
// a main or article element, or role main or article.
func inMainLandmark(n *Node) bool {
	for a := n; a != nil; a = a.Parent {
		if a.Kind != ElementNode {
			continue
		}
		if a.Tag == "main" || a.Tag == "article" {
			return true
		}
		switch strings.ToLower(strings.TrimSpace(a.Attr("role"))) {
		case "main", "article":
			return true
		}
	}
	return false
}

// menuWithSearch reports a menu that holds a search box (a site header:
// its links and a search field): many links, mostly link text, far more
// links than fields. A form is mostly its fields and their labels.
func menuWithSearch(f Features) bool {
	return f.Links >= 5 && f.LinkTextRatio >= 0.6 && f.Links >= 3*f.Inputs && f.LinkTextLen/f.Links < menuAnchor
}

// menuAnchor: links whose anchors average this many runes or more are
// headlines of other pages, not menu items (rule 15 of the table).
const menuAnchor = 25

// maxCaption bounds the caption of a figure that is a picture: longer,
// the figure holds text of its own.
const maxCaption = 400

// maxTitleBlock bounds the text of a block holding the page's h1 that is
// its title: the h1 with a kicker, a byline and a date, not an article.
const maxTitleBlock = 300

// holdsTopHeading reports whether n is or holds a rank-1 heading (h1, or
// role=heading with aria-level 1).
func holdsTopHeading(doc []byte, n *Node) bool {
	if n.Kind == ElementNode && headingRank(doc, n) == 1 {
		return true
	}
	for _, c := range n.Children {
		if c.Kind == ElementNode || c.Kind == FragmentNode {
			if holdsTopHeading(doc, c) {
				return true
			}
		}
	}
	return false
}

// inComplementary reports whether n is or lies in an aside element or
// role=complementary: content beside the page's own.
func inComplementary(n *Node) bool {
	for a := n; a != nil; a = a.Parent {
		if a.Kind == ElementNode && (a.Tag == "aside" || strings.EqualFold(strings.TrimSpace(a.Attr("role")), "complementary")) {
			return true
		}
	}
	return false
}

// headlineLink reports whether the first heading under n (n included) is
// a link to another page: it holds a link, or a link around it (inside
// n) holds it. A fragment link ("#top") is not another page.
func headlineLink(doc []byte, n *Node) bool {
	h := firstHeading(doc, n)
	if h == nil {
		return false
	}
	for a := h; a != nil; a = a.Parent {
		if a.Kind == ElementNode && a.Tag == "a" && pageLink(a) {
			return true
		}
		if a == n {
			break
		}
	}
	return holdsPageLink(h)
}

func firstHeading(doc []byte, n *Node) *Node {
	if n.Kind == ElementNode && headingRank(doc, n) > 0 && headingRank(doc, n) < boldRank {
		return n
	}
	for _, c := range n.Children {
		if c.Kind == ElementNode || c.Kind == FragmentNode {
			if h := firstHeading(doc, c); h != nil {
				return h
			}
		}
	}
	return nil
}

func pageLink(a *Node) bool {
	href := strings.TrimSpace(a.Attr("href"))
	return href != "" && href[0] != '#' && !strings.HasPrefix(strings.ToLower(href), "javascript:")
}

func holdsPageLink(n *Node) bool {
	for _, c := range n.Children {
		if c.Kind == ElementNode && (c.Tag == "a" && pageLink(c) || holdsPageLink(c)) {
			return true
		}
	}
	return false
}

// pageFooterCues are names that say a wrapper is the page's footer (where
// it sits); footerCues also name what a block is about ("legal").
var pageFooterCues = cues("footer colophon")

// maxFooterShare bounds the share of the page's text a wrapper named as
// the footer may hold: more, it is a page wrapper named for its sticky
// footer.
const maxFooterShare = 0.5

// inPageFooter reports whether n lies in the page's footer: a footer
// element or role=contentinfo, or a wrapper named footer, that is not
// inside a sectioning element or main (HTML: such a footer is that
// section's), with no article between it and n (an item in a footer
// keeps its own foot, and a named wrapper, see entryCues, is an
// article's foot).
func inPageFooter(x *docIndex, n *Node) bool {
	total := 0
	if len(x.textOff) > 0 {
		total = int(x.textOff[len(x.textOff)-1])
	}
	for a := n; a != nil; a = a.Parent {
		if a.Kind != ElementNode {
			continue
		}
		role := strings.ToLower(strings.TrimSpace(a.Attr("role")))
		switch {
		case a.Tag == "body" || a.Tag == "html" || a.Tag == "article" || role == "article":
			return false
		case a.Tag == "footer" || role == "contentinfo":
			return !inSectioning(a.Parent)
		}
		if id, class := a.Attr("id"), a.Attr("class"); hasNameCue(pageFooterCues, id, class) && !hasNameCue(entryCues, id, class) && !inSectioning(a.Parent) {
			if s, ok := x.nodeSpan(a); ok && total > 0 && float64(x.textOff[s.hi]-x.textOff[s.lo]) <= maxFooterShare*float64(total) {
				return true
			}
		}
	}
	return false
}

// inSectioning reports whether n is or lies in a sectioning element
// (article, aside, nav, section) or main, or one by role.
func inSectioning(n *Node) bool {
	for a := n; a != nil; a = a.Parent {
		if a.Kind != ElementNode {
			continue
		}
		switch a.Tag {
		case "article", "aside", "nav", "section", "main":
			return true
		}
		switch strings.ToLower(strings.TrimSpace(a.Attr("role"))) {
		case "main", "article", "complementary", "navigation", "region":
			return true
		}
	}
	return false
}
