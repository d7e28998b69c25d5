package partition

// annotate fills Text, Features, Topic and Label of every block of res at
// every level. It renders the document once (buildIndex) and then maps
// each block to a slice of that rendering, so its cost is one walk of the
// tree plus, per block, work proportional to the block's text.
//
// stems, spare and spareTopic (the tables of an earlier document's
// index and topicer, see docIndex.spare and topicer.spareTables) carry
// work and memory over from earlier documents; each may be nil. It
// returns this document's tables for the next one.
func annotate(res *Result, opts Options, stems *stemCache, spare *docIndex, spareTopic *topicer) (*docIndex, *topicer) {
	x := buildIndexReusing(spare, res, opts)
	t := newTopicer(x, res, opts, stems, spareTopic)
	var visit func(b *Block)
	visit = func(b *Block) {
		s := x.blockSpan(b)
		b.Text = x.spanText(s)
		b.Features = x.features(s, b.Text, b.Start, b.End)
		var body float64
		if b.Node != nil {
			body = res.StyleOf(b.Node).FontSize
		}
		b.Topic = t.topic(s, body)
		b.Label = labelBlock(b, x, s)
		for _, c := range b.Children {
			visit(c)
		}
	}
	for _, b := range res.Blocks {
		visit(b)
	}
	for _, b := range res.Leaves {
		if b.Label == "" { // a leaf not reachable from res.Blocks
			visit(b)
		}
	}
	relabelByMainText(res, x)
	return x.spare(), t.spareTables()
}
