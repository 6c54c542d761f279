/// Binary search over a collection partitioned by a predicate: every element for which `belongsInSecondPartition`
/// is false comes before every element for which it is true.
extension RandomAccessCollection {
    /// The index of the first element for which `belongsInSecondPartition` is true (`endIndex` when there is none),
    /// in O(log n) calls of the predicate. The collection must be partitioned by it: with a sorted collection and
    /// `{ $0 >= value }` this is the lower bound of `value`, with `{ $0 > value }` its upper bound.
    @inlinable
    public func partitioningIndex(where belongsInSecondPartition: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try belongsInSecondPartition(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
