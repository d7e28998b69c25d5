package changerate

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The expected values are worked by hand from the formulas in the doc
// comment (derivations in the comments), not taken from the code.
func TestRegular(t *testing.T) {
	cases := []struct {
		n, x int
		i    float64
		want float64
	}{
		{10, 0, 1, 0},                // no change: −ln(10.5/10.5)
		{10, 10, 1, math.Log(21)},    // every time: −ln(0.5/10.5)
		{4, 2, 2, math.Log(1.8) / 2}, // −ln(2.5/4.5)/2
		{1, 1, 7, math.Log(3) / 7},   // one changed interval of a week
		{30, 3, 1, -math.Log(27.5 / 30.5)},
	}
	for _, c := range cases {
		if got := Regular(c.n, c.x, c.i); !near(got, c.want) {
			t.Errorf("Regular(%d, %d, %g) = %g, want %g", c.n, c.x, c.i, got, c.want)
		}
	}
	for _, bad := range [][3]float64{{0, 0, 1}, {3, 4, 1}, {3, -1, 1}, {3, 1, 0}} {
		if got := Regular(int(bad[0]), int(bad[1]), bad[2]); !math.IsNaN(got) {
			t.Errorf("Regular(%v) = %g, want NaN", bad, got)
		}
	}
}

func TestMLE(t *testing.T) {
	cases := []struct {
		name      string
		intervals []float64
		changed   []bool
		want      float64
		ok        bool
	}{
		// Equal intervals t, X of n changed: X·t/(e^{λt}−1) = (n−X)·t, so
		// λ = ln(n/(n−X))/t; n=4, X=2, t=2 → ln 2 / 2.
		{"equal", []float64{2, 2, 2, 2}, []bool{true, false, true, false}, math.Log(2) / 2, true},
		// 1/(e^λ−1) = 3 → λ = ln(4/3).
		{"two", []float64{1, 3}, []bool{true, false}, math.Log(4.0 / 3), true},
		// 1/(x−1) + 2/(x²−1) = 1 with x = e^λ → x² − x − 4 = 0.
		{"irregular", []float64{1, 2, 1}, []bool{true, true, false}, math.Log((1 + math.Sqrt(17)) / 2), true},
		{"no change", []float64{1, 5, 2}, []bool{false, false, false}, 0, true},
		{"zero-length ignored", []float64{1, 0, 3}, []bool{true, true, false}, math.Log(4.0 / 3), true},
		{"every time", []float64{1, 2}, []bool{true, true}, math.Inf(1), false},
	}
	for _, c := range cases {
		got, ok := MLE(c.intervals, c.changed)
		if ok != c.ok || (ok && !near(got, c.want)) || (!ok && got != c.want) {
			t.Errorf("%s: MLE = %g, %v; want %g, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if _, ok := MLE(nil, nil); ok {
		t.Error("MLE of no interval: ok")
	}
}

func TestEstimate(t *testing.T) {
	// One capture: no interval, no estimate.
	if _, ok := Estimate(nil, nil); ok {
		t.Error("Estimate of one capture: ok")
	}
	// Regular intervals (within 10 %): the regular estimator.
	r, ok := Estimate([]float64{1, 1.05, 1}, []bool{true, false, false})
	if !ok || r.Method != MethodRegular || !near(r.Rate, Regular(3, 1, 3.05/3)) || r.Changes != 1 || r.Intervals != 3 {
		t.Errorf("regular: %+v", r)
	}
	// Irregular: the MLE.
	r, ok = Estimate([]float64{1, 3}, []bool{true, false})
	if !ok || r.Method != MethodMLE || !near(r.Rate, math.Log(4.0/3)) || !near(r.MeanIntervalDays, 2) {
		t.Errorf("irregular: %+v", r)
	}
	// Irregular, every interval changed: no finite MLE, the regular
	// estimator with the mean interval: −ln(0.5/2.5)/1.5.
	r, ok = Estimate([]float64{1, 2}, []bool{true, true})
	if !ok || r.Method != MethodRegular || r.MLEOK || !near(r.Rate, math.Log(5)/1.5) {
		t.Errorf("every time: %+v", r)
	}
	// Never changed: 0 either way.
	r, ok = Estimate([]float64{1, 7, 30}, []bool{false, false, false})
	if !ok || r.Rate != 0 || math.Signbit(r.Rate) {
		t.Errorf("never: %+v", r)
	}
}

func TestPChange(t *testing.T) {
	if got, want := PChange(math.Log(2), 1), 0.5; !near(got, want) {
		t.Errorf("PChange(ln 2, 1) = %g, want %g", got, want)
	}
	if got, want := PChange(0.1, 7), 1-math.Exp(-0.7); !near(got, want) {
		t.Errorf("PChange(0.1, 7) = %g, want %g", got, want)
	}
	if got := PChange(0, 7); got != 0 {
		t.Errorf("PChange(0, 7) = %g", got)
	}
}

// FuzzMLE: the estimate is a root of the likelihood equation whenever it
// exists, and never NaN for informative input.
func FuzzMLE(f *testing.F) {
	f.Add(1.0, 3.0, 2.0, uint8(0b101))
	f.Add(0.5, 0.5, 100.0, uint8(0b001))
	f.Fuzz(func(t *testing.T, a, b, c float64, mask uint8) {
		iv := []float64{a, b, c}
		for _, x := range iv {
			if math.IsNaN(x) || math.IsInf(x, 0) || x > 1e6 || (x > 0 && x < 1e-6) {
				return
			}
		}
		ch := []bool{mask&1 != 0, mask&2 != 0, mask&4 != 0}
		l, ok := MLE(iv, ch)
		if !ok {
			return
		}
		if math.IsNaN(l) || l < 0 {
			t.Fatalf("MLE(%v, %v) = %g", iv, ch, l)
		}
		if l == 0 {
			return
		}
		var lhs, rhs float64
		for i, x := range iv {
			if x > 0 && ch[i] {
				lhs += x / math.Expm1(l*x)
			} else if x > 0 {
				rhs += x
			}
		}
		if math.Abs(lhs-rhs) > 1e-6*math.Max(1, rhs) {
			t.Fatalf("MLE(%v, %v) = %g: Σ t/(e^λt−1) = %g, Σ unchanged = %g", iv, ch, l, lhs, rhs)
		}
	})
}

// TestInterval: the likelihood-ratio interval's ends lie where the
// log-likelihood is chi2/2 below the MLE's, around the MLE, for regular
// and irregular histories; its open high end when every interval
// changed, and its 0 low end when none did (docs/TABLES.md's examples).
func TestInterval(t *testing.T) {
	approx := func(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }
	for _, h := range []struct {
		t []float64
		c []bool
	}{
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, []bool{true, false, false, true, false, false, true, false, false, false}},
		{[]float64{0.01, 30, 2, 90, 0.5, 7}, []bool{true, true, false, true, false, true}},
	} {
		mle, _ := MLE(h.t, h.c)
		lo, hi, ok := Interval(h.t, h.c, Chi2For95)
		cut := logLik(mle, h.t, h.c) - Chi2For95/2
		if !ok || !(lo < mle && mle < hi) || !approx(logLik(lo, h.t, h.c), cut) || !approx(logLik(hi, h.t, h.c), cut) {
			t.Errorf("%v %v: [%v, %v] around MLE %v, want ends at log-likelihood %v", h.t, h.c, lo, hi, mle, cut)
		}
	}
	if lo, hi, ok := Interval([]float64{1, 1}, []bool{true, true}, Chi2For95); !ok || !approx(lo, -math.Log1p(-math.Exp(-Chi2For95/4))) || !math.IsInf(hi, 1) {
		t.Errorf("2 of 2 daily intervals changed: [%v, %v], want [0.48, +Inf)", lo, hi)
	}
	if lo, hi, ok := Interval([]float64{7, 7, 7}, []bool{false, false, false}, Chi2For95); !ok || lo != 0 || !approx(hi, Chi2For95/2/21) {
		t.Errorf("0 of 3 weekly intervals changed: [%v, %v], want [0, %v]", lo, hi, Chi2For95/2/21)
	}
	if _, _, ok := Interval(nil, nil, Chi2For95); ok {
		t.Error("no interval: ok")
	}
}
