package model

// Score summarizes predictions against true labels, as svm-predict and
// liblinear-predict report them.
type Score struct {
	Regression bool
	// Correct and Total count exact matches (classification).
	Correct, Total int
	// MSE is the mean squared error and SquaredCorrelation the squared
	// Pearson correlation of predictions and targets (regression).
	MSE, SquaredCorrelation float64
}

// Accuracy returns Correct/Total, 0 for no rows.
func (s Score) Accuracy() float64 {
	if s.Total == 0 {
		return 0
	}
	return float64(s.Correct) / float64(s.Total)
}

// ScorePredictions compares pred with truth (equal lengths; it panics
// otherwise). regression selects the regression figures.
func ScorePredictions(pred, truth []float64, regression bool) Score {
	if len(pred) != len(truth) {
		panic("core: ScorePredictions: lengths differ")
	}
	s := Score{Regression: regression, Total: len(pred)}
	var sv, sy, svv, syy, svy float64
	for i, v := range pred {
		y := truth[i]
		if v == y {
			s.Correct++
		}
		s.MSE += (v - y) * (v - y)
		sv += v
		sy += y
		svv += v * v
		syy += y * y
		svy += v * y
	}
	if n := float64(len(pred)); n > 0 {
		s.MSE /= n
		num := n*svy - sv*sy
		s.SquaredCorrelation = num * num / ((n*svv - sv*sv) * (n*syy - sy*sy))
	}
	return s
}
