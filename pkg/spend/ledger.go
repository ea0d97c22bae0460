package spend

import "time"

// The ledger's records: what pkg/store keeps of every billed call of X and
// every answer of the model, and the sums it reads back.

// XCall is one billable call of X.
type XCall struct {
	At       time.Time
	Endpoint string
	Kind     string
	// ResourceIDs are the resources the call returned or made.
	ResourceIDs []string
	// UnitUSD is the price of one resource of Kind.
	UnitUSD float64
	// Also are the resources of other kinds the call returned (the users
	// and posts of X's includes), billed with it.
	Also []XResources
}

// XResources are resources of one kind a call returned, at UnitUSD each.
type XResources struct {
	Kind        string
	ResourceIDs []string
	UnitUSD     float64
}

// XCallBilled is what a recorded call added to the bill.
type XCallBilled struct {
	// Resources counts the resources not yet billed on the call's UTC day.
	Resources int
	USD       float64
}

// ModelUsage is the tokens one answer of the model used, and their price.
type ModelUsage struct {
	At               time.Time
	Model            string
	PromptTokens     int
	CompletionTokens int
	USD              float64
}

// EndpointSpend is what one endpoint of X cost.
type EndpointSpend struct {
	Endpoint  string
	Calls     int
	Resources int
	USD       float64
}

// ModelSpend is what one model cost.
type ModelSpend struct {
	Model            string
	PromptTokens     int
	CompletionTokens int
	USD              float64
}

// Sums are the spending of a period, in all and by endpoint and model.
type Sums struct {
	XUSD       float64
	ModelUSD   float64
	ByEndpoint []EndpointSpend
	ByModel    []ModelSpend
}
