// Album.swift: written once by `trove generate` from SampleModels.graph(); this file is yours to edit.
import Foundation
import Trove

/// An object of entity 'Album'. Add your own code here: `trove generate` never overwrites this file.
public class Album: _Album {}
