// Photographer.swift — written once by `trove generate`, never overwritten: the app's own code.
import Foundation
import Trove

/// An object of entity 'Photographer'. Add your own code here: `trove generate` never overwrites this file.
class Photographer: _Photographer {}
