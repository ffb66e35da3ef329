/// A page fetch's number and when it started and ended, since the walk began.
package protocol FetchInterval {
    var number: Int { get }
    var started: Duration { get }
    var finished: Duration { get }
}
