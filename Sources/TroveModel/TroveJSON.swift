// The model's `.json` attribute values and the model file are JSON: code that imports the model
// gets the JSON parser and values with it.
@_exported public import TroveJSON
