// Video.swift: written once by `trove generate` from SampleModels.media(); this file is yours to edit.
import Foundation
import Trove

/// An object of entity 'Video'. Add your own code here: `trove generate` never overwrites this file.
public class Video: _Video {}
