package knowledge

// SampleTitle and SampleText are the document seeded on first start, so
// that a new install shows a grounded draft; the administrator may delete it.
const (
	SampleTitle = "The pit: opening hours"
	SampleText  = `# Opening hours

The pit is open every night from midnight to dawn, and all day on Fridays the 13th. Sinners arriving late wait in the brimstone lounge.

# Admission

Admission is free for the wicked; the virtuous pay double and queue behind them. Pets are welcome, cats especially.

# Contact

Complaints go to the complaints department, which is on fire.
`
)
