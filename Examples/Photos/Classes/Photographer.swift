// Photographer.swift: written once by `trove generate` from model.json; this file is yours to edit.
import Foundation
import Trove

/// An object of entity 'Photographer'. Add your own code here: `trove generate` never overwrites this file.
public class Photographer: _Photographer {}
