import Foundation
import Trove

/// An object of entity 'Photo', as an app's typed class (see Photo+Generated.swift).
class Photo: _Photo {}
