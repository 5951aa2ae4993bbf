// The umbrella module: `import Trove` brings the whole public API.
@_exported import TroveContext
@_exported import TroveImport
@_exported import TroveJSON
@_exported import TroveModel
@_exported import TrovePredicate
@_exported import TroveStore
