// Tag.swift — written once by `trove generate`, never overwritten: the app's own code.
import Foundation
import Trove

/// An object of entity 'Tag'. Add your own code here: `trove generate` never overwrites this file.
class Tag: _Tag {}
