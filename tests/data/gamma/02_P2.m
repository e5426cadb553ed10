Network 02_P2 {
Layer L02 {
Type: CONV
Dimensions { K: 64, C: 64, Y: 224, X: 224, R: 3, S: 3 }
Dataflow {
SpatialMap(1,1) Y';
TemporalMap(24,24) K;
TemporalMap(3,3) S;
TemporalMap(3,3) R;
TemporalMap(1,1) C;
TemporalMap(68,68) X';
Cluster(36,P);
SpatialMap(1,1) X';
TemporalMap(11,11) K;
TemporalMap(1,1) C;
TemporalMap(1,1) Y';
TemporalMap(3,3) S;
TemporalMap(3,3) R;
}
}
}
