// Package changerate estimates how often a page changes from the captures
// an archive holds, with the Poisson model of Cho and Garcia-Molina
// ("Estimating frequency of change", ACM TOIT 2003): a page changes as a
// Poisson process of rate λ, and a crawler that revisits it only learns,
// for each interval between two captures, whether at least one change
// happened in it.
//
// The naive estimate X/(n·I) (X changed intervals out of n, of mean length
// I) is biased low, because several changes inside one interval look like
// one. Two better estimators:
//
//   - Regular: for intervals of (nearly) equal length I, the paper's
//     improved estimator λ̂ = −ln((n − X + 0.5)/(n + 0.5)) / I, finite even
//     when every interval changed.
//   - MLE: for irregular intervals, the maximum-likelihood λ̂, the root of
//     Σ_changed tᵢ/(e^{λtᵢ} − 1) = Σ_unchanged tⱼ. It is 0 when no interval
//     changed and has no finite value when every interval changed.
//
// Estimate picks between them as docs/TABLES.md ("urls") documents. Rates
// are per day when intervals are given in days.
package changerate

import (
	"math"
)

// RegularTolerance is how unequal intervals may be and still count as
// regular for Estimate: max ≤ RegularTolerance × min.
const RegularTolerance = 1.1

// Regular returns the improved estimator for n intervals of mean length
// meanInterval, x of them with a detected change. It returns NaN when n or
// meanInterval is not positive or x is outside [0, n].
func Regular(n, x int, meanInterval float64) float64 {
	if n <= 0 || x < 0 || x > n || !(meanInterval > 0) {
		return math.NaN()
	}
	r := -math.Log((float64(n-x)+0.5)/(float64(n)+0.5)) / meanInterval
	return r + 0 // turn -0 (no change) into 0
}

// MLE returns the maximum-likelihood rate for intervals of the given
// lengths, changed[i] saying whether a change was detected in interval i.
// Intervals of length ≤ 0 carry no information (two captures at the same
// instant) and are ignored. ok is false when no finite maximum exists:
// every informative interval changed, or there is none.
func MLE(intervals []float64, changed []bool) (rate float64, ok bool) {
	var unchanged float64
	var nChanged, nInf int
	for i, t := range intervals {
		if !(t > 0) || i >= len(changed) {
			continue
		}
		nInf++
		if changed[i] {
			nChanged++
		} else {
			unchanged += t
		}
	}
	switch {
	case nInf == 0:
		return math.NaN(), false
	case nChanged == 0:
		return 0, true
	case unchanged == 0:
		return math.Inf(1), false
	}
	// f(λ) = Σ_changed t/(e^{λt}−1) − Σ_unchanged t falls strictly from +∞
	// at λ→0 to −Σ_unchanged t at λ→∞: one root, bracketed by doubling and
	// found by bisection (robust where Newton would overshoot on the flat
	// tail).
	f := func(l float64) float64 {
		s := 0.0
		for i, t := range intervals {
			if t > 0 && i < len(changed) && changed[i] {
				s += t / math.Expm1(l*t)
			}
		}
		return s - unchanged
	}
	lo, hi := 0.0, 1.0
	for f(hi) > 0 {
		lo, hi = hi, hi*2
		if hi > 1e300 {
			return math.Inf(1), false
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2, true
}

// MinIntervals is the fewest informative intervals (three captures) a
// rate is given from: from one interval the estimate is only "changed"
// or "not" over one span (two captures a second apart that differ read
// as 94,920 changes a day), and says nothing a reader should act on.
const MinIntervals = 2

// Chi2For95 is the 95 % quantile of χ² with one degree of freedom: the
// likelihood-ratio interval of a rate is where the log-likelihood is
// within Chi2For95/2 of its maximum.
const Chi2For95 = 3.841458820694124

// logLik is the log-likelihood of rate l given the intervals: each
// interval t is a trial that shows a change with probability 1 − e^{−lt}.
func logLik(l float64, intervals []float64, changed []bool) float64 {
	s := 0.0
	for i, t := range intervals {
		if !(t > 0) || i >= len(changed) {
			continue
		}
		if changed[i] {
			s += math.Log(-math.Expm1(-l * t))
		} else {
			s -= l * t
		}
	}
	return s
}

// Interval returns the likelihood-ratio confidence interval of the rate
// (Chi2For95: 95 %): the rates whose log-likelihood is within chi2/2 of
// the maximum's, the MLE's. It holds for regular and irregular intervals
// alike, so it is the interval of whichever estimate Estimate picks (the
// regular one is the MLE of equal intervals, up to its 0.5 corrections).
// low is 0 when no interval changed; high is +Inf when every interval
// changed (then the likelihood grows without bound: nothing limits how
// often a page that always changed changes). ok is false when no
// interval has positive length.
func Interval(intervals []float64, changed []bool, chi2 float64) (low, high float64, ok bool) {
	mle, finite := MLE(intervals, changed)
	if math.IsNaN(mle) {
		return math.NaN(), math.NaN(), false
	}
	peak := 0.0 // the supremum when every interval changed: each term → 0
	if finite {
		peak = logLik(mle, intervals, changed)
	} else {
		mle = math.Inf(1)
	}
	cut := peak - chi2/2
	below := func(l float64) bool { return logLik(l, intervals, changed) < cut }
	// Bisection between a rate inside the interval and one outside it:
	// the log-likelihood is concave, so each side crosses the cut once.
	edge := func(in, out float64) float64 {
		for range 200 {
			mid := in + (out-in)/2
			if mid == in || mid == out {
				break
			}
			if below(mid) {
				out = mid
			} else {
				in = mid
			}
		}
		return in + (out-in)/2
	}
	inside := mle
	if !finite {
		// Every interval changed: find some rate above the cut to start.
		inside = 1
		for below(inside) && inside < 1e300 {
			inside *= 2
		}
	}
	if mle == 0 || !below(0) {
		low = 0
	} else {
		low = edge(inside, 0)
	}
	if !finite {
		return low, math.Inf(1), true
	}
	out := max(inside*2, 1)
	for !below(out) {
		if out > 1e300 {
			return low, math.Inf(1), true
		}
		out *= 2
	}
	return low, edge(inside, out), true
}

// Method names the estimator Estimate chose.
const (
	MethodRegular = "regular"
	MethodMLE     = "irregular-mle"
)

// Result is what Estimate found for one URL's history.
type Result struct {
	Rate             float64 // λ̂, the chosen estimate
	Method           string  // MethodRegular or MethodMLE
	Regular          float64 // the regular estimator with the mean interval
	MLE              float64 // the irregular-interval MLE; valid when MLEOK
	MLEOK            bool
	Intervals        int     // informative intervals (length > 0)
	Changes          int     // of them, with a detected change
	MeanIntervalDays float64 // mean length of the informative intervals
}

// Estimate returns the change rate of a history of intervals. It uses the
// regular estimator when the intervals are equal within RegularTolerance,
// and when every interval changed (the MLE has no finite value then);
// otherwise the MLE. ok is false when no interval has positive length.
func Estimate(intervals []float64, changed []bool) (r Result, ok bool) {
	minT, maxT, sum := math.Inf(1), 0.0, 0.0
	for i, t := range intervals {
		if !(t > 0) || i >= len(changed) {
			continue
		}
		r.Intervals++
		if changed[i] {
			r.Changes++
		}
		sum += t
		minT, maxT = min(minT, t), max(maxT, t)
	}
	if r.Intervals == 0 {
		return r, false
	}
	r.MeanIntervalDays = sum / float64(r.Intervals)
	r.Regular = Regular(r.Intervals, r.Changes, r.MeanIntervalDays)
	r.MLE, r.MLEOK = MLE(intervals, changed)
	if maxT <= RegularTolerance*minT || !r.MLEOK {
		r.Rate, r.Method = r.Regular, MethodRegular
	} else {
		r.Rate, r.Method = r.MLE, MethodMLE
	}
	return r, true
}

// PChange is the probability of at least one change within days under a
// Poisson process of rate ratePerDay: 1 − e^{−λ·days}.
func PChange(ratePerDay, days float64) float64 {
	return -math.Expm1(-ratePerDay * days)
}
