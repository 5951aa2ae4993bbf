// RequiredThing.swift: written once by `trove generate` from SampleModels.media(); this file is yours to edit.
import Foundation
import Trove

/// An object of entity 'RequiredThing'. Add your own code here: `trove generate` never overwrites this file.
public class RequiredThing: _RequiredThing {}
