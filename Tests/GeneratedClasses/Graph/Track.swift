// Track.swift: written once by `trove generate` from SampleModels.graph(); this file is yours to edit.
import Foundation
import Trove

/// An object of entity 'Track'. Add your own code here: `trove generate` never overwrites this file.
public class Track: _Track {}
